import { timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.ts';
import { ApiKeySchema, type ApiKey } from '../entities/api-key.entity.ts';
import type { User } from '../entities/user.entity.ts';
import type { Logger } from 'pino';
import type { Stores } from '../stores/index.ts';
import { apiKeyScheme, parseBearer } from './secret-scheme.ts';

export { parseBearer };

/** How stale `last_used_at` may get before a request writes it again (saves a write per call). */
const lastUsedResolutionMs = 60_000;

/** SHA-256 of the whole key, as stored (the key format is `apiKeyScheme`'s, secret-scheme.ts). */
export function hashApiKey(key: string): Buffer {
  return apiKeyScheme.hash(key);
}

export function generateApiKey(): { key: string; prefix: string } {
  const { secret, prefix } = apiKeyScheme.generate();
  return { key: secret, prefix };
}

/** Creates a key for `user` and returns the row and the plaintext key, which is never stored. */
export async function createApiKey(
  em: EntityManager,
  user: User,
  name = 'default',
): Promise<{ apiKey: ApiKey; key: string }> {
  const { key, prefix } = generateApiKey();
  const apiKey = em.create(ApiKeySchema, {
    user,
    name,
    prefix,
    hash: hashApiKey(key).toString('hex'),
    createdAt: new Date(),
    lastUsedAt: null,
    revokedAt: null,
  });
  await em.persistAndFlush(apiKey);
  return { apiKey, key };
}

/**
 * Authenticated keys are cached for `KEY_CACHE_MS` (key and user rows as loaded), so a
 * request with a known key costs no database round trip. Revocation takes effect at once:
 * in this process through `localRevocations`, across instances sharing Redis through a
 * revocation version stored there (one GET per request, checked before a cached key is
 * trusted; revokeApiKey bumps it). Without a shared store, another process's revocation
 * (the CLI beside a running server on PostgreSQL) applies within KEY_CACHE_MS.
 */
export const KEY_CACHE_MS = 10_000;
const keyCache = new Map<string, { row: ApiKey; hash: Buffer; until: number; local: number; shared: string | null }>();
let localRevocations = 0;

/** Shared-store key of the revocation version. */
const revocationKey = (stores: Stores) => `${stores.keyPrefix}apikeys:revocations`;

/** The shared revocation version; null without Redis; undefined when Redis did not answer. */
async function sharedVersion(stores: Stores | undefined): Promise<string | null | undefined> {
  if (!stores || stores.kind !== 'redis' || !stores.redis) return null;
  try {
    return (await stores.redis.get(revocationKey(stores))) ?? '0';
  } catch {
    return undefined;
  }
}

export interface AuthenticateOptions {
  /** The process's stores: enables the key cache (with cross-instance revocation on Redis). */
  stores?: Stores;
  /** Where a failed off-path `last_used_at` write is reported. */
  log?: Logger;
}

/**
 * Resolves an Authorization header to a live API key (with its user loaded).
 * Throws AppError UNAUTHORIZED for a missing, malformed, unknown or revoked key.
 * With `stores`, a recently authenticated key is answered from the cache (see KEY_CACHE_MS).
 * `last_used_at` is written off the request's path, at most once a minute per key.
 */
export async function authenticateApiKey(
  em: EntityManager,
  authorization: string | undefined,
  opts: AuthenticateOptions = {},
): Promise<ApiKey> {
  const token = parseBearer(authorization);
  if (!token) {
    throw authorization
      ? new AppError('ERR_API_KEY_INVALID', 'Malformed Authorization header; expected "Bearer <API key>".')
      : new AppError('ERR_API_KEY_MISSING', 'Missing API key.');
  }
  const prefix = apiKeyScheme.prefixOf(token);
  const digest = hashApiKey(token);
  const now = Date.now();
  const shared = opts.stores ? await sharedVersion(opts.stores) : undefined;
  const cached = prefix && shared !== undefined ? keyCache.get(prefix) : undefined;
  if (
    cached &&
    cached.until > now &&
    cached.local === localRevocations &&
    cached.shared === shared &&
    timingSafeEqual(cached.hash, digest)
  ) {
    touchLastUsed(em, cached.row, now, opts.log);
    return cached.row;
  }
  const local = localRevocations;
  const row = prefix ? await em.findOne(ApiKeySchema, { prefix }, { populate: ['user'] }) : null;
  if (!apiKeyScheme.matches(token, row?.hash) || !row || row.revokedAt) {
    throw new AppError('ERR_API_KEY_INVALID', 'Invalid or revoked API key.');
  }
  if (opts.stores && shared !== undefined) {
    if (keyCache.size > 10_000) keyCache.clear();
    keyCache.set(row.prefix, { row, hash: digest, until: now + KEY_CACHE_MS, local, shared });
  }
  touchLastUsed(em, row, now, opts.log);
  return row;
}

const pendingTouches = new Set<Promise<void>>();

/**
 * Records use at most once per `lastUsedResolutionMs` per key, off the request's path: a
 * direct update on a fork of its own (no unit-of-work flush, nothing of the request's
 * changes dragged in), not awaited by the request.
 */
function touchLastUsed(em: EntityManager, row: ApiKey, now: number, log?: Logger): void {
  if (row.lastUsedAt && now - row.lastUsedAt.getTime() < lastUsedResolutionMs) return;
  const at = new Date(now);
  row.lastUsedAt = at;
  const write: Promise<void> = em
    .fork()
    .nativeUpdate(ApiKeySchema, { id: row.id }, { lastUsedAt: at })
    .then(
      () => {},
      (err: unknown) =>
        log?.warn({ err: err instanceof Error ? err.message : String(err) }, 'recording last_used_at failed'),
    )
    .finally(() => pendingTouches.delete(write));
  pendingTouches.add(write);
}

/**
 * Resolves once every `last_used_at` write started so far has settled. For tests: it needs the
 * module's pending writes, so it stays here, tagged for knip's production mode.
 * @internal
 */
export async function settleLastUsed(): Promise<void> {
  await Promise.all([...pendingTouches]);
}

/** Keys of one user, or all keys, newest first. */
export async function listApiKeys(em: EntityManager, userId?: number): Promise<ApiKey[]> {
  return em.find(ApiKeySchema, userId === undefined ? {} : { user: userId }, {
    orderBy: { id: 'desc' },
    populate: ['user'],
  });
}

/**
 * Revokes a key by numeric id or prefix. Returns the key, or null if there is none. The key
 * stops working at once in this process and, given the stores (Redis), in every instance.
 */
export async function revokeApiKey(
  em: EntityManager,
  idOrPrefix: string,
  userId?: number,
  stores?: Stores,
): Promise<ApiKey | null> {
  const where = /^\d+$/.test(idOrPrefix) ? { id: Number(idOrPrefix) } : { prefix: idOrPrefix.replace(/^ak_/, '') };
  const row = await em.findOne(ApiKeySchema, userId === undefined ? where : { ...where, user: userId });
  if (!row) return null;
  if (!row.revokedAt) {
    row.revokedAt = new Date();
    await em.flush();
  }
  localRevocations++;
  keyCache.delete(row.prefix);
  if (stores?.kind === 'redis' && stores.redis) await stores.redis.incr(revocationKey(stores));
  return row;
}

/** The public view of a key: never the hash. */
export function describeApiKey(k: ApiKey) {
  return {
    id: k.id,
    name: k.name,
    prefix: `ak_${k.prefix}`,
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt ? k.lastUsedAt.toISOString() : null,
    revoked_at: k.revokedAt ? k.revokedAt.toISOString() : null,
  };
}
