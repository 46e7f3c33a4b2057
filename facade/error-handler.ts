import type { Middleware } from 'koa';
import { closeAfterUnreadBody } from './body.ts';
import { toErrorResponse } from './errors.ts';

/**
 * The one place a failure becomes a response. Also turns bare statuses left by the router
 * (404 for no route, 405 with its Allow header, 501) into the documented JSON shape.
 */
export function errorHandler(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.respond === false) return;
      if (ctx.body === undefined || ctx.body === null) {
        if (ctx.status === 404) throw Object.assign(new Error('Not found'), { status: 404 });
        if (ctx.status === 405) throw Object.assign(new Error('Method not allowed'), { status: 405 });
        if (ctx.status === 501) {
          ctx.status = 405;
          throw Object.assign(new Error('Method not allowed'), { status: 405 });
        }
      }
    } catch (err) {
      const res = toErrorResponse(err);
      if (res.unexpected) (ctx.state.log ?? console).error({ err }, 'unhandled error');
      if (ctx.headerSent || !ctx.writable) return;
      closeAfterUnreadBody(ctx);
      for (const [k, v] of Object.entries(res.headers)) ctx.set(k, v);
      ctx.status = res.status;
      ctx.body = res.body;
    }
  };
}
