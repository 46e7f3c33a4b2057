import type { Context, Middleware } from 'koa';
import type { Metrics } from '../src/metrics.ts';
import { closeAfterUnreadBody } from './body.ts';
import { toErrorResponse } from './errors.ts';
import { facadeState } from './koa-context.ts';

/** A siteverify answer as the metrics count it. */
type Counted = { success: boolean; 'error-codes': readonly string[] };

/**
 * Siteverify speaks the Turnstile/reCAPTCHA protocol even when it fails before the
 * verifier runs: a malformed, oversized or wrongly typed body is a `bad-request` verdict, a
 * failing dependency an `internal-error` one (HTTP 200, as those services answer), and a
 * rate-limited call HTTP 429 with `rate-limited` (our extension) and Retry-After.
 *
 * The one place siteverify's metrics are counted: every verdict answered, the procedure's
 * and these alike (by its first error code as answered), and each rate-limit refusal.
 */
export function siteverifyShape(metrics?: Metrics): Middleware {
  const answer = (ctx: Context, err: unknown) => {
    const res = toErrorResponse(err);
    for (const [k, v] of Object.entries(res.headers)) ctx.set(k, v);
    closeAfterUnreadBody(ctx);
    if (res.unexpected) {
      const log = facadeState(ctx).log;
      if (log) log.error({ err }, 'siteverify failed');
      else console.error({ err }, 'siteverify failed');
    }
    const code = res.status === 429 ? 'rate-limited' : res.status >= 500 ? 'internal-error' : 'bad-request';
    ctx.status = res.status === 429 ? 429 : 200;
    if (res.status === 429) metrics?.countRateLimitRejection('siteverify');
    const verdict = { success: false, 'error-codes': [code] };
    ctx.body = verdict;
    metrics?.countVerdict(verdict);
  };
  const counted = (ctx: Context) => {
    const verdict = ctx.body as Counted | undefined;
    if (verdict && typeof verdict.success === 'boolean') metrics?.countVerdict(verdict);
  };
  return (ctx, next) =>
    next().then(
      () => counted(ctx),
      (err: unknown) => answer(ctx, err),
    );
}
