import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { AppError } from '../src/errors.ts';
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
        if (ctx.status === 404) throw new AppError('NOT_FOUND', 'Not found.');
        if (ctx.status === 405 || ctx.status === 501) throw new AppError('METHOD_NOT_ALLOWED', 'Method not allowed.');
      }
    } catch (err) {
      const res = toErrorResponse(err);
      if (res.unexpected) {
        const log = (ctx.state as { log?: Logger }).log;
        if (log) log.error({ err }, 'unhandled error');
        else console.error('unhandled error', err);
      }
      if (ctx.headerSent || !ctx.writable) return;
      closeAfterUnreadBody(ctx);
      ctx.set(res.headers);
      ctx.status = res.status;
      ctx.body = res.body;
    }
  };
}
