import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../routers/context.ts';
import { AppError } from '../src/errors.ts';
import { describeApiKey } from '../src/accounts/api-keys.ts';
import { describeUser } from '../src/accounts/users.ts';
import { closeSession, openSession, type OpenSession } from '../src/console/sessions.ts';
import { clientKey } from '../src/net/client-key.ts';
import { bundleNamed, type WidgetBundle } from '../src/bundles.ts';
import { bodyParser } from './body.ts';
import { contextFromKoa } from './koa-context.ts';
import { rateLimit } from './rate-limit.ts';
import { checkCsrf, requestSession, sameOrigin, sessionCookie, setSessionCookie } from './console-session.ts';

/**
 * The console's policy: every script and style is ours (no inline script, no other host),
 * calls go to our own origin only, and no page may frame it.
 */
const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** The one HTML page of the console: its bundles, versioned, and nothing inline. */
function shell(js: WidgetBundle, css: WidgetBundle): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Console · auditcaptcha</title>
<link rel="stylesheet" href="/console/assets/console.css?v=${css.version}">
<script type="module" src="/console/assets/console.js?v=${js.version}"></script>
</head>
<body>
<div id="app"><noscript><p>The console needs JavaScript.</p></noscript></div>
</body>
</html>
`;
}

/** A console bundle: gzip when accepted, an ETag per encoding, immutable with its `?v=`. */
function serveAsset(ctx: Context, b: WidgetBundle, type: string): void {
  const gzip = ctx.acceptsEncodings('gzip', 'identity') === 'gzip';
  ctx.vary('Accept-Encoding');
  ctx.set('Cache-Control', ctx.query.v === b.version ? 'public, max-age=31536000, immutable' : 'no-cache');
  ctx.etag = gzip ? `${b.etag.slice(0, -1)}-gz"` : b.etag;
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.type = type;
  if (gzip) ctx.set('Content-Encoding', 'gzip');
  ctx.body = gzip ? b.gzip : b.code;
}

/** What the console knows of its session: the account, the key it acts as, its CSRF token and end. */
function describeSession(session: OpenSession) {
  return {
    data: {
      account: describeUser(session.apiKey.user),
      api_key: describeApiKey(session.apiKey),
      csrf_token: session.csrf,
      expires_at: session.expiresAt.toISOString(),
    },
  };
}

/**
 * /console (the pages, one HTML shell for every path under it), /console/assets/* (its
 * bundles) and /console/api/session (sign in, the current session, sign out). Everything
 * else the console does goes through /trpc with the session cookie (facade/trpc-mount.ts).
 */
export function consoleRouter(services: Services): Router {
  const r = new Router();
  const bundle = async (name: string) => {
    try {
      return await bundleNamed(name);
    } catch (err) {
      services.log.error({ err }, `building ${name} failed`);
      throw new AppError('ERR_UNAVAILABLE', 'The console is not available.', { retryAfter: 5 });
    }
  };
  const signInLimit = rateLimit(services.stores, {
    name: 'console-sign-in',
    max: services.config.CONSOLE_SIGN_IN_ATTEMPTS,
    windowMs: 15 * 60_000,
    id: (ctx) => `ip:${clientKey(ctx.ip)}`,
    onStoreError: 'closed',
    log: services.log,
    metrics: services.metrics,
  });
  const noStore = (ctx: Context) => ctx.set('Cache-Control', 'no-store');

  const page = async (ctx: Context) => {
    const [js, css] = await Promise.all([bundle('console.js'), bundle('console.css')]);
    ctx.type = 'text/html; charset=utf-8';
    noStore(ctx);
    ctx.set('Content-Security-Policy', CONSOLE_CSP);
    ctx.set('Referrer-Policy', 'same-origin');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.body = shell(js, css);
  };
  r.get('/console', page);
  r.get(/^\/console\/(?!assets\/|api\/).*/, page);
  r.get('/console/assets/console.js', async (ctx) =>
    serveAsset(ctx, await bundle('console.js'), 'application/javascript; charset=utf-8'),
  );
  r.get('/console/assets/console.css', async (ctx) =>
    serveAsset(ctx, await bundle('console.css'), 'text/css; charset=utf-8'),
  );

  r.post('/console/api/session', signInLimit, bodyParser(4096), async (ctx) => {
    noStore(ctx);
    if (!sameOrigin(ctx, services.config)) {
      throw new AppError('ERR_CSRF', 'Sign in from the console’s own page.');
    }
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const key = typeof body.api_key === 'string' ? body.api_key : '';
    if (!key.trim()) {
      throw new AppError('ERR_VALIDATION', 'Type your API key.', { errors: { api_key: ['Type your API key.'] } });
    }
    const ttlMs = services.config.CONSOLE_SESSION_HOURS * 3_600_000;
    const opened = await openSession(contextFromKoa(services, ctx).em, key, ttlMs, {
      stores: services.stores,
      log: services.log,
    });
    setSessionCookie(ctx, services.config, opened.secret, opened.expiresAt);
    ctx.status = 201;
    ctx.body = describeSession(opened);
  });
  r.get('/console/api/session', async (ctx) => {
    noStore(ctx);
    ctx.body = describeSession(await requestSession(services, ctx));
  });
  r.delete('/console/api/session', async (ctx) => {
    noStore(ctx);
    const secret = sessionCookie(ctx);
    if (secret) {
      checkCsrf(ctx, services.config, secret);
      await closeSession(contextFromKoa(services, ctx).em, secret);
    }
    setSessionCookie(ctx, services.config, '', new Date(0));
    ctx.status = 204;
  });
  return r;
}
