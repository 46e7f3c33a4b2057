import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { AppError } from '../src/errors.ts';
import { closeAfterUnreadBody } from './body.ts';
import { toErrorResponse } from './errors.ts';

/**
 * The one place a failure becomes a response. Also turns bare statuses left by the router
 * (404 for no route, 405 with its Allow header, 501) into the documented JSON shape.
 */
export function errorHandler(): Middleware {
  const answer = (ctx: Context, err: unknown) => {
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
  };
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      answer(ctx, err);
      return;
    }
    if (ctx.respond === false || (ctx.body !== undefined && ctx.body !== null)) return;
    if (ctx.status === 404) answer(ctx, new AppError('ERR_NOT_FOUND'));
    else if (ctx.status === 405 || ctx.status === 501) answer(ctx, new AppError('ERR_METHOD_NOT_ALLOWED'));
  };
}
