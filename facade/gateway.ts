import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import {
  challengeLocation,
  GATEWAY_PREFIX,
  returnUriOf,
  safeReturnPath,
  servedUnderPrefix,
  type Gateway,
} from '../src/gateway/gateway.ts';
import { isNavigation, type OriginalRequest, type ProxyProtocol } from '../src/gateway/forwarded.ts';
import { CLEARANCE_COOKIE } from '../src/gateway/clearance.ts';
import { gatewayPageCsp, renderChallengePage, renderRetryPage } from '../views/gateway-pages.ts';
import { bundleNamed } from '../src/bundles.ts';
import { bodyParser } from './body.ts';
import { facadeState } from './koa-context.ts';

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

/** The request as the gateway reads it: a forward-auth call in `protocol`'s headers, else as it came. */
function readRequest(ctx: Context, gateway: Gateway, protocol?: ProxyProtocol): OriginalRequest {
  return gateway.original(
    ctx.req.socket.remoteAddress ?? '',
    ctx.headers,
    { method: ctx.method, url: ctx.originalUrl },
    protocol,
  );
}

/** {@link readRequest}, built once per request and kept in `ctx.state`. */
function originalOf(ctx: Context, gateway: Gateway, protocol?: ProxyProtocol): OriginalRequest {
  const state = facadeState(ctx);
  state.gatewayOriginal ??= readRequest(ctx, gateway, protocol);
  return state.gatewayOriginal;
}

/**
 * Before every route: a request for `/.auditcaptcha/...` from a trusted proxy is a protected
 * host's visitor. Its client address becomes the forwarded one, and the widget's script, font
 * and challenge API are served there under the prefix (so the page needs nothing from another
 * origin); anything else under the prefix that is not a gateway page is a 404.
 */
export function gatewayPrefix(gateway: Gateway): Middleware {
  const prefix = `${GATEWAY_PREFIX}/`;
  // Not an async function: every other request passes through with no promise of its own.
  return (ctx, next) => {
    if (!ctx.path.startsWith(prefix)) return next();
    const original = originalOf(ctx, gateway);
    if (original.trusted) ctx.request.ip = original.ip;
    const rest = ctx.path.slice(GATEWAY_PREFIX.length);
    if (!servedUnderPrefix(rest)) return plain(ctx, 404, 'Not found.');
    if (rest !== '/challenge' && rest !== '/clearance') ctx.path = rest;
    return next();
  };
}

/**
 * The gateway's own pages on a protected host: the challenge page and the clearance form's
 * target (the forward-auth endpoint is answered ahead of Koa: facade/forward-auth.ts).
 */
export function gatewayRouter(gateway: Gateway): Router {
  const r = new Router();

  r.get(`${GATEWAY_PREFIX}/challenge`, async (ctx) => {
    const original = originalOf(ctx, gateway);
    const site = await gateway.registry.siteFor(original.host);
    if (!site) return plain(ctx, 404, 'This host is not protected by the gateway.');
    const asked = typeof ctx.query.return === 'string' ? ctx.query.return : undefined;
    // nginx's `error_page 401` location proxies the original request here with its target in
    // X-Original-URI: send it to the page proper, returning to that target.
    if (asked === undefined) {
      const challenged = readRequest(ctx, gateway, 'nginx');
      if (challenged.target.ok && challenged.target.path !== `${GATEWAY_PREFIX}/challenge`) {
        if (!isNavigation(challenged.method, ctx.headers))
          return plain(ctx, 401, 'This address needs a browser check first: open the page in a browser.');
        ctx.set('Cache-Control', 'no-store');
        return ctx.redirect(challengeLocation(returnUriOf(challenged)));
      }
    }
    const back = safeReturnPath(asked);
    if (await gateway.cleared(site, original, ctx.headers, ctx.cookies.get(CLEARANCE_COOKIE), Date.now())) {
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
    const original = originalOf(ctx, gateway);
    const result = await gateway.clear(
      original,
      ctx.headers,
      text(body['ac-response']),
      text(body.return) || undefined,
    );
    if (!result.ok) {
      const nonce = randomBytes(16).toString('base64');
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
    // Behind a TLS-terminating proxy the connection to us is plain HTTP: the forwarded scheme decides.
    ctx.cookies.secure = original.proto === 'https';
    ctx.cookies.set(CLEARANCE_COOKIE, result.cookie, {
      path: '/',
      maxAge: result.maxAge * 1000,
      httpOnly: true,
      sameSite: 'lax',
      secure: original.proto === 'https',
      overwrite: true,
    });
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(result.returnTo);
    ctx.status = 303;
  });
  return r;
}
