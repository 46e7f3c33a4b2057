import type { Context } from 'koa';
import type { Config } from '../src/config.ts';
import type { ApiKey } from '../src/entities/api-key.entity.ts';
import { AppError } from '../src/errors.ts';
import { confirmSessionKey, csrfMatches, resumeSession, type OpenSession } from '../src/console/sessions.ts';
import type { Services } from '../routers/context.ts';
import { contextFromKoa } from './koa-context.ts';

/** The console session's cookie (docs/console.md). */
export const SESSION_COOKIE = 'ac_console';

/** The header every console change carries: the session's CSRF token. */
export const CSRF_HEADER = 'X-CSRF-Token';

/** The header a console change of a credential carries: an API key of the account, typed again. */
export const CONFIRM_KEY_HEADER = 'X-Confirm-Key';

/** The session secret the request's cookie carries, if any. */
export function sessionCookie(ctx: Context): string | undefined {
  return ctx.cookies.get(SESSION_COOKIE) || undefined;
}

/**
 * Sets (or, with `expires` in the past, clears) the session cookie: HttpOnly, SameSite=Strict,
 * Path=/ (the console's pages and /trpc), Secure when PUBLIC_URL is https, with its expiry.
 * Written as a header: Koa's cookie jar refuses Secure on the plain HTTP behind a TLS proxy.
 */
export function setSessionCookie(ctx: Context, config: Pick<Config, 'PUBLIC_URL'>, value: string, expires: Date) {
  const secure = config.PUBLIC_URL?.startsWith('https:') ? '; Secure' : '';
  const maxAge = Math.max(0, Math.floor((expires.getTime() - Date.now()) / 1000));
  ctx.append(
    'Set-Cookie',
    `${SESSION_COOKIE}=${value}; Path=/; Expires=${expires.toUTCString()}; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure}`,
  );
}

/**
 * Whether a browser request comes from this service's own pages: an Origin, when sent, equal
 * to ours, and a Sec-Fetch-Site, when sent, `same-origin`. A request naming neither (not a
 * browser) passes; SameSite=Strict and the CSRF token guard it then.
 */
export function sameOrigin(ctx: Context, config: Pick<Config, 'PUBLIC_URL'>): boolean {
  const origin = ctx.get('Origin');
  const site = ctx.get('Sec-Fetch-Site');
  return (!origin || origin === ownOrigin(ctx, config)) && (!site || site === 'same-origin');
}

/** Our origin: PUBLIC_URL's when set (behind a TLS proxy the request itself says http), else the request's. */
function ownOrigin(ctx: Context, config: Pick<Config, 'PUBLIC_URL'>): string {
  return config.PUBLIC_URL ? new URL(config.PUBLIC_URL).origin : `${ctx.protocol}://${ctx.host}`;
}

/** 403 ERR_CSRF unless a change comes from our origin with the session's token. */
export function checkCsrf(ctx: Context, config: Pick<Config, 'PUBLIC_URL'>, secret: string): void {
  if (!sameOrigin(ctx, config) || !csrfMatches(secret, ctx.get(CSRF_HEADER) || undefined)) {
    throw new AppError('ERR_CSRF', 'This change needs the console session’s X-CSRF-Token, from the console’s origin.');
  }
}

/** The live session of the request's cookie (401 ERR_SESSION_INVALID otherwise). */
export async function requestSession(services: Services, ctx: Context): Promise<OpenSession & { secret: string }> {
  const secret = sessionCookie(ctx);
  const session = await resumeSession(contextFromKoa(services, ctx).em, secret);
  return { ...session, secret: secret! };
}

/**
 * How a console page calls /trpc: the cookie's session stands for the API key that opened
 * it. Queries (GET) need the session; mutations (POST) also need the CSRF token; with
 * `credential` (a call of a procedure whose meta says `credential: true`), also an API key of
 * the account typed again in X-Confirm-Key (403 ERR_KEY_CONFIRMATION_* otherwise), so a
 * session alone never mints or changes a credential. Returns the session's key, which the
 * API-key gate then counts against its per-minute limit as any key.
 */
export async function consoleCaller(services: Services, ctx: Context, credential = false): Promise<ApiKey> {
  const session = await requestSession(services, ctx);
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') checkCsrf(ctx, services.config, session.secret);
  if (credential) {
    await confirmSessionKey(contextFromKoa(services, ctx).em, session, ctx.get(CONFIRM_KEY_HEADER) || undefined, {
      stores: services.stores,
      log: services.log,
    });
  }
  return session.apiKey;
}
