import { randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';

const acceptableId = /^[A-Za-z0-9._:-]{1,128}$/;

type Done = () => void;

/**
 * The request's `ctx.state`: its id, and a child logger carrying it made on first use (most
 * requests log one line, at the end, or none below info). Other middlewares add their own
 * fields (apiKey, rateLimit) as on a plain object.
 */
class RequestState {
  #child: Logger | undefined;
  /** Callbacks run once when the response has finished or the connection closed. */
  done: Done[] = [];
  [key: string]: unknown;
  constructor(
    readonly requestId: string,
    readonly root: Logger,
  ) {}
  get log(): Logger {
    return (this.#child ??= this.root.child({ requestId: this.requestId }));
  }
}

/**
 * Runs `fn` once the response has finished (or the connection closed first), on the one
 * listener the request log installs; alone (no request log in front), on its own. Node's
 * ServerResponse emits 'close' once in either case (`writableFinished` tells which), so one
 * listener does what on-finished's socket and response listeners do, at a fraction of the cost.
 */
export function whenResponseDone(ctx: Context, fn: Done): void {
  const state = ctx.state as Partial<RequestState>;
  if (state.done) {
    state.done.push(fn);
    return;
  }
  ctx.res.once('close', fn);
}

/**
 * Gives each request an id (the caller's X-Request-Id when it is sane, a UUID otherwise),
 * echoes it, and logs one JSON line per finished request with a child logger carrying it.
 * Logging when the response is done (its 'close') also covers /trpc, which writes the response itself.
 */
export function requestLog(log: Logger): Middleware {
  return (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    const requestId = incoming && acceptableId.test(incoming) ? incoming : randomUUID();
    const state = new RequestState(requestId, log);
    ctx.state = state;
    ctx.set('X-Request-Id', requestId);
    const logLine = log.isLevelEnabled('info');
    const started = logLine ? performance.now() : 0;
    const done = () => {
      for (const fn of state.done) fn();
      if (!logLine) return;
      const ms = performance.now() - started;
      // On the root logger with the id as a field, the same line a child would write: most
      // requests make no child logger of their own (making one serialises its bindings).
      log.info(
        {
          requestId,
          method: ctx.method,
          path: ctx.path,
          status: ctx.res.statusCode,
          ms: Math.round(ms * 10) / 10,
          ip: ctx.ip,
        },
        'request',
      );
    };
    ctx.res.once('close', done);
    return next();
  };
}
