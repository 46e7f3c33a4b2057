import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../routers/context.ts';
import { AppError } from '../src/errors.ts';
import { bundleNamed, PROBE_FONT_PATH, probeFontBytes, type WidgetBundle } from '../src/bundles.ts';
import { PROVIDERS, providerBundle, providerNamed } from '../shared/providers.ts';
import { demoSiteFor, LOOPBACK_ORIGIN } from '../src/demo/site.ts';
import { isDemoMode, renderDemoLimitPage, renderDemoPage, renderNoDemoPage, renderVerdictPage } from '../views/demo.ts';
import { DEMO_VERIFY_LIMIT, verifyDemoToken } from '../src/demo/verify.ts';
import { bodyParser } from './body.ts';
import { rateLimit } from './rate-limit.ts';

function html(ctx: Context, status: number, body: string, csp: string) {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Security-Policy', `${csp}; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`);
  ctx.set('Referrer-Policy', 'strict-origin-when-cross-origin');
  ctx.body = body;
}

/**
 * A bundled script: gzip when accepted, an ETag per encoding; cached for a day
 * (`?v=<version>`: for a year, immutable). Any page may load it (CORS and CORP open).
 */
function serveScript(ctx: Context, b: WidgetBundle): void {
  const gzip = ctx.acceptsEncodings('gzip', 'identity') === 'gzip';
  ctx.vary('Accept-Encoding');
  ctx.set(
    'Cache-Control',
    ctx.query.v === b.version
      ? 'public, max-age=31536000, immutable'
      : 'public, max-age=86400, stale-while-revalidate=604800',
  );
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
  ctx.etag = gzip ? `${b.etag.slice(0, -1)}-gz"` : b.etag;
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.type = 'application/javascript; charset=utf-8';
  if (gzip) ctx.set('Content-Encoding', 'gzip');
  ctx.body = gzip ? b.gzip : b.code;
}

const probeFont = probeFontBytes();

/** The environment proof's font (widget/env-probes.ts fetches it): cached for a day, any page may fetch it. */
function serveProbeFont(ctx: Context): void {
  ctx.set('Cache-Control', 'public, max-age=86400, stale-while-revalidate=604800');
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
  ctx.type = 'font/otf';
  ctx.body = probeFont;
}

/** The same origin under the other loopback name, so the demo embeds the widget cross-origin. */
function otherLoopback(origin: string): string {
  const url = new URL(origin);
  url.hostname = url.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
  return url.origin;
}

/**
 * GET /widget.js (the bundled browser widget), the compatibility scripts, the environment
 * proof's font, GET /demo and POST /demo/verify.
 *
 * widget.js: built once at start (src/bundles.ts), gzip when accepted, an ETag per
 * encoding; cached for a day (`?v=<version>`, as the demo uses it, for a year, immutable).
 * Any page may load it (CORS and CORP open).
 */
export function widgetRouter(services: Services): Router {
  const r = new Router();
  /** A bundle by name, or 503 while it cannot be built or read. */
  const bundle = async (name: string) => {
    try {
      return await bundleNamed(name);
    } catch {
      throw new AppError('ERR_UNAVAILABLE', 'The script is not available.', { retryAfter: 5 });
    }
  };

  // The widget, its proof-of-work worker, and the Turnstile, reCAPTCHA and hCaptcha client
  // APIs at their providers' paths (a page switches by changing the script's host). Each is
  // built (or read) once at start, so a broken build is logged before the first request.
  const served = [
    { bundle: 'widget.js', paths: ['/widget.js'] },
    { bundle: 'widget-worker.js', paths: ['/widget-worker.js'] },
    ...PROVIDERS.map((p) => ({ bundle: providerBundle(p), paths: p.scripts })),
  ];
  for (const script of served) {
    bundleNamed(script.bundle).catch((err) => services.log.error({ err }, `building ${script.paths[0]} failed`));
    for (const path of script.paths) r.get(path, async (ctx) => serveScript(ctx, await bundle(script.bundle)));
  }

  r.get(PROBE_FONT_PATH, serveProbeFont);

  r.get('/demo', async (ctx) => {
    const nonce = randomBytes(16).toString('base64');
    const demo = demoSiteFor(services);
    if (!demo) return html(ctx, 404, renderNoDemoPage(nonce), `default-src 'none'; style-src 'nonce-${nonce}'`);
    let pageOrigin: string | undefined;
    try {
      pageOrigin = new URL(`${ctx.protocol}://${ctx.host}`).origin;
    } catch {
      // an unparseable Host: treated like an unregistered origin below
    }
    const home = demo.origins.find((o) => LOOPBACK_ORIGIN.test(o)) ?? demo.origins[0];
    const known = pageOrigin !== undefined && LOOPBACK_ORIGIN.test(pageOrigin) && demo.origins.includes(pageOrigin);
    const widgetOrigin = otherLoopback(known ? pageOrigin! : home);
    const { version } = await bundle('widget.js');
    html(
      ctx,
      200,
      renderDemoPage({
        sitekey: demo.sitekey,
        widgetUrl: `${widgetOrigin}/widget.js?v=${version}`,
        nonce,
        wrongOrigin: known ? undefined : { origin: pageOrigin ?? ctx.host, use: `${home}/demo` },
      }),
      // What a site embedding the widget allows: the script and its API calls from the
      // service, the challenge image and the proof-of-work worker from blob: URLs, and
      // 'wasm-unsafe-eval' so the worker may compile its WebAssembly SHA-256.
      `default-src 'none'; script-src ${widgetOrigin} 'wasm-unsafe-eval'; connect-src ${widgetOrigin}; img-src blob:; worker-src blob:; style-src 'nonce-${nonce}'`,
    );
  });

  // The demo form needs no credential: its own per-address limit, and it verifies in-process
  // (src/demo/verify.ts) so it cannot spend the loopback address's siteverify budget.
  const demoLimit = rateLimit(services.stores, {
    name: 'demo-verify',
    ...DEMO_VERIFY_LIMIT,
    id: (ctx) => `ip:${ctx.ip}`,
    onStoreError: 'closed',
    log: services.log,
    metrics: services.metrics,
  });
  r.post(
    '/demo/verify',
    async (ctx, next) => {
      try {
        await demoLimit(ctx, next);
      } catch (err) {
        if (!(err instanceof AppError) || err.status !== 429) throw err;
        const nonce = randomBytes(16).toString('base64');
        const after = err.retryAfter ?? 60;
        ctx.set('Retry-After', String(after));
        html(ctx, 429, renderDemoLimitPage(nonce, after), `default-src 'none'; style-src 'nonce-${nonce}'`);
      }
    },
    bodyParser(16 * 1024),
    async (ctx) => {
      const nonce = randomBytes(16).toString('base64');
      const csp = `default-src 'none'; style-src 'nonce-${nonce}'`;
      const demo = demoSiteFor(services);
      if (!demo) return html(ctx, 404, renderNoDemoPage(nonce), csp);
      const body = (ctx.request.body ?? {}) as Record<string, unknown>;
      const text = (v: unknown) => (typeof v === 'string' ? v : '');
      const mode = isDemoMode(body.mode) ? body.mode : 'managed';
      const verdict = await verifyDemoToken(services, services.orm.em.fork(), {
        secret: demo.secret,
        response: text(body['ac-response']) || text(body[providerNamed('turnstile').responseField]),
        remoteip: ctx.ip,
        sitekey: demo.sitekey,
      });
      html(
        ctx,
        200,
        renderVerdictPage({ mode, nonce, verdict: { ...verdict }, name: text(body.name).slice(0, 100) }),
        csp,
      );
    },
  );
  return r;
}
