import type { Middleware } from 'koa';
import { toErrorResponse } from './errors.ts';

const exposed = 'Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id';

/**
 * CORS for the browser (origin-kind) routes. The procedure decides whether the origin is
 * registered; every answer but that refusal (403) carries Access-Control-Allow-Origin for the
 * caller's origin, so the widget can read its errors (429, 404, 422). No credentials, no
 * cookies: the routes are stateless at the HTTP boundary.
 */
export function browserCors(): Middleware {
  return async (ctx, next) => {
    ctx.vary('Origin');
    const origin = ctx.get('Origin');
    const allow = () => {
      if (!origin) return;
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Expose-Headers', exposed);
    };
    try {
      await next();
    } catch (err) {
      if (toErrorResponse(err).status !== 403) allow();
      throw err;
    }
    if (ctx.status !== 403) allow();
  };
}

/**
 * Answers a CORS preflight for a browser route. The sitekey is in the body, which a
 * preflight does not carry, so the origin is checked on the real request.
 */
export function preflight(methods: string[]): Middleware {
  return (ctx) => {
    ctx.vary('Origin');
    const origin = ctx.get('Origin');
    if (origin) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Allow-Methods', [...methods, 'OPTIONS'].join(', '));
      ctx.set('Access-Control-Allow-Headers', 'Content-Type');
      ctx.set('Access-Control-Max-Age', '600');
    }
    ctx.set('Allow', [...methods, 'OPTIONS'].join(', '));
    ctx.status = 204;
  };
}
