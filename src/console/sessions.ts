import { hash as digestOnce } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { AppError } from '../errors.ts';
import { authenticateApiKey } from '../accounts/api-keys.ts';
import { sameSecret, secretScheme } from '../accounts/secret-scheme.ts';
import { ConsoleSessionSchema } from '../entities/console-session.entity.ts';
import type { ApiKey } from '../entities/api-key.entity.ts';
import type { Stores } from '../stores/index.ts';

/**
 * Console session secrets: `cs_<prefix>_<secret>`, the same prefixed-secret scheme as API keys
 * (only SHA-256 of the whole secret is stored; compared in constant time).
 */
const sessionScheme = secretScheme('cs');

/** A session as the facade uses it: the key it acts as (user loaded) and when it ends. */
export interface OpenSession {
  apiKey: ApiKey;
  expiresAt: Date;
  /** The CSRF token of this session (see {@link csrfTokenOf}). */
  csrf: string;
}

/**
 * The CSRF token of a session: derived from its secret (SHA-256 of a tagged copy), so it is
 * never stored, differs per session, and only a page that can read the console's own answers
 * (same origin) learns it. Sent back in the `X-CSRF-Token` header on every change.
 */
export function csrfTokenOf(sessionSecret: string): string {
  return digestOnce('sha256', `csrf:${sessionSecret}`, 'base64url');
}

/** Whether `given` is the CSRF token of the session, in constant time. */
export function csrfMatches(sessionSecret: string, given: string | undefined): boolean {
  return typeof given === 'string' && sameSecret(given, csrfTokenOf(sessionSecret));
}

const invalid = (message: string) => new AppError('ERR_SESSION_INVALID', message);

/**
 * Signs in with an API key (the same check as `Authorization: Bearer`, so a revoked or
 * unknown key is ERR_API_KEY_INVALID) and opens a session of `ttlMs` acting as that key.
 * Returns the session secret, shown only to the browser in its cookie.
 */
export async function openSession(
  em: EntityManager,
  apiKeyText: string,
  ttlMs: number,
  opts: { stores?: Stores; log?: Logger; now?: number } = {},
): Promise<OpenSession & { secret: string }> {
  const apiKey = await authenticateApiKey(em, `Bearer ${apiKeyText.trim()}`, {
    stores: opts.stores,
    log: opts.log,
  });
  const { secret, prefix } = sessionScheme.generate();
  const now = opts.now ?? Date.now();
  const expiresAt = new Date(now + ttlMs);
  const row = em.create(ConsoleSessionSchema, {
    apiKey,
    prefix,
    hash: sessionScheme.hash(secret).toString('hex'),
    createdAt: new Date(now),
    expiresAt,
  });
  await em.persistAndFlush(row);
  // Expired sessions of any user are removed as new ones open (no timer needed).
  await em.nativeDelete(ConsoleSessionSchema, { expiresAt: { $lt: new Date(now) } });
  return { secret, apiKey, expiresAt, csrf: csrfTokenOf(secret) };
}

/**
 * The live session of a cookie's secret. Throws UNAUTHORIZED ERR_SESSION_INVALID when it is
 * missing, unknown, expired, or its API key was revoked (a revoked key ends its sessions at
 * once: every use reads the key's row).
 */
export async function resumeSession(
  em: EntityManager,
  secret: string | undefined,
  now = Date.now(),
): Promise<OpenSession> {
  if (!secret) throw invalid('You are not signed in.');
  const prefix = sessionScheme.prefixOf(secret);
  const row = prefix
    ? await em.findOne(ConsoleSessionSchema, { prefix }, { populate: ['apiKey', 'apiKey.user'] })
    : null;
  if (!sessionScheme.matches(secret, row?.hash) || !row) throw invalid('Your session is not valid; sign in again.');
  if (row.expiresAt.getTime() <= now) throw invalid('Your session has expired; sign in again.');
  if (row.apiKey.revokedAt) throw invalid('The API key of this session was revoked; sign in with another key.');
  return { apiKey: row.apiKey, expiresAt: row.expiresAt, csrf: csrfTokenOf(secret) };
}

const confirmationInvalid = () =>
  new AppError('ERR_KEY_CONFIRMATION_INVALID', 'That is not an active API key of this account; type one of its keys.');

/**
 * A change that mints or changes a credential (an API key, a site secret, a webhook) needs
 * more than the session: its person types an API key again, `typed`, which must be an active
 * key of the session's account. It is checked as sign-in checks a key (SHA-256, compared in
 * constant time; a revoked key fails). Throws FORBIDDEN ERR_KEY_CONFIRMATION_REQUIRED when
 * none was typed, ERR_KEY_CONFIRMATION_INVALID when it is not such a key (one sentence for a
 * wrong, revoked or another account's key, so the answer tells nothing about other accounts).
 */
export async function confirmSessionKey(
  em: EntityManager,
  session: OpenSession,
  typed: string | undefined,
  opts: { stores?: Stores; log?: Logger } = {},
): Promise<void> {
  const key = typed?.trim();
  if (!key) {
    throw new AppError(
      'ERR_KEY_CONFIRMATION_REQUIRED',
      'This change creates or changes a credential: type your API key again to confirm it.',
    );
  }
  let confirmed: ApiKey;
  try {
    confirmed = await authenticateApiKey(em, `Bearer ${key}`, opts);
  } catch (err) {
    if (err instanceof AppError && err.status === 401) throw confirmationInvalid();
    throw err;
  }
  if (confirmed.user.id !== session.apiKey.user.id) throw confirmationInvalid();
}

/** Ends the session of `secret`, if there is one (signing out). */
export async function closeSession(em: EntityManager, secret: string | undefined): Promise<void> {
  const prefix = secret ? sessionScheme.prefixOf(secret) : undefined;
  if (!prefix || !secret) return;
  const row = await em.findOne(ConsoleSessionSchema, { prefix });
  if (row && sessionScheme.matches(secret, row.hash)) await em.removeAndFlush(row);
}
