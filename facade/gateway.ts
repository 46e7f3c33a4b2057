import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Services } from '../routers/context.ts';
import {
  challengeLocation,
  GATEWAY_PREFIX,
  safeReturnPath,
  type Gateway,
  type GatewayDecision,
} from '../src/gateway/gateway.ts';
import { isNavigation, one } from '../src/gateway/forwarded.ts';
import { CLEARANCE_COOKIE } from '../src/gateway/clearance.ts';
import { gatewayPageCsp, renderChallengePage, renderRetryPage } from '../views/gateway.ts';
import { bundleNamed, PROBE_FONT_PATH } from '../src/bundles.ts';
import { bodyParser } from './body.ts';

/** The forward-auth endpoint every proxy points at (docs/gateway.md). */
export const GATEWAY_AUTH_PATH = '/api/v1/gateway/auth';

/** Paths of ours a protected host serves under `/.auditcaptcha/`: the widget and its challenge API. */
function servedUnderPrefix(rest: string): boolean {
  return (
    rest === '/widget.js' ||
    rest === '/widget-worker.js' ||
    rest === PROBE_FONT_PATH ||
    /^\/api\/v[123]\/challenges(\/[A-Za-z0-9_-]{1,64}(\/(asset|verify|regenerate|private-token))?)?$/.test(rest)
  );
}

function plain(ctx: Context, status: number, text: string): void {
  ctx.status = status;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = `${text}\n`;
}

function html(ctx: Context, status: number, body: string, nonce: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Security-Policy', gatewayPageCsp(nonce));
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.body = body;
}

const peerOf = (ctx: Context) => ctx.req.socket.remoteAddress ?? '';
const ownOf = (ctx: Context) => ({ method: ctx.method, url: ctx.originalUrl });

/** Answers a forward-auth decision the way the asking proxy understands it. */
function answer(ctx: Context, d: GatewayDecision, nginx: boolean): void {
  ctx.set('X-Gateway-Outcome', d.outcome);
  ctx.set('X-Gateway-Rule', encodeURIComponent(d.rule));
  switch (d.outcome) {
    case 'pass':
      ctx.status = 204;
      ctx.set('Cache-Control', 'no-store');
      return;
    case 'challenge':
      // nginx's auth_request takes only 2xx, 401 and 403: its `error_page 401` shows the page.
      if (nginx) return plain(ctx, 401, 'A browser check is needed.');
      ctx.set('Cache-Control', 'no-store');
      ctx.status = 302;
      ctx.redirect(d.location!);
      return;
    case 'refuse':
      return plain(ctx, 401, d.reason!);
    case 'deny':
    case 'unknown':
      return plain(ctx, 403, d.reason!);
  }
}

/**
 * Before every route: a request for `/.auditcaptcha/...` from a trusted proxy is a protected
 * host's visitor. Its client address becomes the forwarded one, and the widget's script, font
 * and challenge API are served there under the prefix (so the page needs nothing from another
 * origin); anything else under the prefix that is not a gateway page is a 404.
 */
export function gatewayPrefix(gateway: Gateway): Middleware {
  return async (ctx, next) => {
    if (!ctx.path.startsWith(`${GATEWAY_PREFIX}/`)) {
      await next();
      return;
    }
    const original = gateway.original(peerOf(ctx), ctx.headers, ownOf(ctx));
    if (original.trusted) ctx.request.ip = original.ip;
    const rest = ctx.path.slice(GATEWAY_PREFIX.length);
    if (rest !== '/challenge' && rest !== '/clearance') {
      if (!servedUnderPrefix(rest)) return plain(ctx, 404, 'Not found.');
      ctx.path = rest;
    }
    await next();
  };
}

/**
 * The gateway's own routes: the forward-auth endpoint (any method: nginx's subrequest keeps
 * the original one), the challenge page and the clearance form's target.
 */
export function gatewayRouter(services: Services, gateway: Gateway): Router {
  const r = new Router();

  r.all(GATEWAY_AUTH_PATH, async (ctx) => {
    const d = await gateway.check(peerOf(ctx), ctx.headers, ownOf(ctx));
    services.metrics.countGatewayCheck(d.outcome, d.rule);
    // nginx sends X-Original-URI (its documented auth_request idiom); Caddy and Traefik X-Forwarded-Uri.
    answer(ctx, d, d.original.trusted && one(ctx.headers, 'x-original-uri') !== undefined);
  });

  r.get(`${GATEWAY_PREFIX}/challenge`, async (ctx) => {
    const original = gateway.original(peerOf(ctx), ctx.headers, ownOf(ctx));
    const site = await gateway.registry.siteFor(original.host);
    if (!site) return plain(ctx, 404, 'This host is not protected by the gateway.');
    const asked = typeof ctx.query.return === 'string' ? ctx.query.return : undefined;
    // nginx's `error_page 401` location proxies the original request here: send it to the page proper.
    if (asked === undefined && original.path !== `${GATEWAY_PREFIX}/challenge`) {
      if (!isNavigation(original.method, ctx.headers))
        return plain(ctx, 401, 'This address needs a browser check first: open the page in a browser.');
      ctx.set('Cache-Control', 'no-store');
      return ctx.redirect(challengeLocation(original.uri));
    }
    const back = safeReturnPath(asked);
    if (gateway.cleared(site, original, ctx.headers, Date.now())) {
      ctx.set('Cache-Control', 'no-store');
      return ctx.redirect(back);
    }
    const nonce = randomBytes(16).toString('base64');
    const { version } = await bundleNamed('widget.js');
    html(
      ctx,
      200,
      renderChallengePage({
        nonce,
        sitekey: site.sitekey,
        host: original.host,
        returnTo: back,
        contact: site.settings.contact,
        widgetVersion: version,
      }),
      nonce,
    );
  });

  r.post(`${GATEWAY_PREFIX}/clearance`, bodyParser(16 * 1024), async (ctx) => {
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const text = (v: unknown) => (typeof v === 'string' ? v : '');
    const result = await gateway.clear(
      peerOf(ctx),
      ctx.headers,
      ownOf(ctx),
      text(body['ac-response']),
      text(body.return) || undefined,
    );
    if (!result.ok) {
      const nonce = randomBytes(16).toString('base64');
      const original = gateway.original(peerOf(ctx), ctx.headers, ownOf(ctx));
      const site = await gateway.registry.siteFor(original.host);
      return html(
        ctx,
        403,
        renderRetryPage({
          nonce,
          reason: result.reason,
          returnTo: text(body.return) || '/',
          contact: site?.settings.contact ?? '',
        }),
        nonce,
      );
    }
    const original = gateway.original(peerOf(ctx), ctx.headers, ownOf(ctx));
    ctx.set(
      'Set-Cookie',
      `${CLEARANCE_COOKIE}=${result.cookie}; Path=/; Max-Age=${result.maxAge}; HttpOnly; SameSite=Lax${original.proto === 'https' ? '; Secure' : ''}`,
    );
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(result.returnTo);
    ctx.status = 303;
  });
  return r;
}
