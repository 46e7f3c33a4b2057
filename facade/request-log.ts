import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';

const acceptableId = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives each request an id (the caller's X-Request-Id when it is sane, a UUID otherwise),
 * echoes it, and logs one JSON line per finished request with a child logger carrying it.
 * Logging on 'finish'/'close' also covers /trpc, which writes the response itself.
 */
export function requestLog(log: Logger): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    const requestId = acceptableId.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    // The child logger is made on first use: most requests log one line, at the end.
    let child: Logger | undefined;
    Object.defineProperty(ctx.state, 'log', { get: () => (child ??= log.child({ requestId })), configurable: true });
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    const done = () => {
      ctx.res.off('finish', done);
      ctx.res.off('close', done);
      if (!log.isLevelEnabled('info')) return;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      ctx.state.log.info(
        { method: ctx.method, path: ctx.path, status: ctx.res.statusCode, ms: Math.round(ms * 10) / 10, ip: ctx.ip },
        'request',
      );
    };
    ctx.res.once('finish', done);
    ctx.res.once('close', done);
    await next();
  };
}
