import type { Context, Middleware } from 'koa';
import ratelimit from 'koa-ratelimit';
import type { Logger } from 'pino';
import { AppError } from '../src/errors.ts';
import type { Stores } from '../src/stores/index.ts';
import type { Metrics } from '../src/metrics.ts';
import { facadeState } from './koa-context.ts';

export interface LimitOptions {
  /** Distinguishes this limit's counters from other limits'. */
  name: string;
  max: number;
  windowMs: number;
  /** Who is counted: an API key id, a client address. */
  id: (ctx: Context) => string;
  /**
   * What happens when the store cannot be reached: 'open' lets the request through (a
   * limiter outage must not take area A down), 'closed' answers 503.
   */
  onStoreError: 'open' | 'closed';
  log: Logger;
  /** Counts refusals (rate_limit_rejections_total{limit: name}) and store failures. */
  metrics?: Metrics;
}

/**
 * X-RateLimit-Reset in whole epoch seconds, as the Redis driver sends it and the OpenAPI
 * document says: koa-ratelimit's memory driver (the embedded default) writes the window's
 * end with microseconds (`1795627064.931918`), which integer parsers refuse. Rounded up, so
 * a client that waits until then finds the window over.
 */
function wholeSecondReset(ctx: Context): void {
  const reset = Number(ctx.response.get('X-RateLimit-Reset'));
  if (reset > 0 && !Number.isInteger(reset)) ctx.set('X-RateLimit-Reset', String(Math.ceil(reset)));
}

/**
 * A koa-ratelimit limiter on the process's store (Redis through the bridge, or its memory
 * driver), setting X-RateLimit-Limit/Remaining/Reset (whole seconds on either). A refused
 * request becomes a RATE_LIMITED AppError with Retry-After, so it gets the documented error body.
 */
export function rateLimit(stores: Stores, opts: LimitOptions): Middleware {
  const limiter = ratelimit({
    driver: stores.rateLimit.driver,
    db: stores.rateLimit.db as never,
    duration: opts.windowMs,
    max: opts.max,
    id: opts.id,
    namespace: `${stores.keyPrefix}rl:${opts.name}`,
  });
  return async (ctx, next) => {
    let passed = false;
    try {
      await limiter(ctx, async () => {
        passed = true;
      });
    } catch (err) {
      if (passed) throw err;
      opts.log.warn({ err: (err as Error).message, limit: opts.name }, 'rate-limit store unavailable');
      opts.metrics?.countStoreError('rate_limit');
      if (opts.onStoreError === 'closed') {
        throw new AppError('ERR_UNAVAILABLE', 'Service temporarily unavailable; try again shortly.', { retryAfter: 5 });
      }
      await next();
      return;
    }
    wholeSecondReset(ctx);
    if (!passed) {
      opts.metrics?.countRateLimitRejection(opts.name);
      const after = Math.max(1, Number(facadeState(ctx).rateLimit?.after) || 1);
      throw new AppError('ERR_RATE_LIMITED', `Too many requests; retry in ${after} s.`, { retryAfter: after });
    }
    await next();
  };
}
