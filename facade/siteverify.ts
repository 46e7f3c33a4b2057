import type { Context, Middleware } from 'koa';
import type { Metrics } from '../src/metrics.ts';
import type { Verdict } from '../src/captcha/siteverify.ts';
import { inProtocol, type Protocol } from '../src/captcha/protocols.ts';
import { PROVIDERS } from '../shared/providers.ts';
import { closeAfterUnreadBody } from './body.ts';
import { toErrorResponse } from './errors.ts';
import { facadeState } from './koa-context.ts';

/** The procedure every siteverify path calls. */
export const SITEVERIFY_PROCEDURE = 'siteverify.verify';

/** One path siteverify is served at, and the shape its answers take there. */
export interface SiteverifyPath {
  path: string;
  protocol: Protocol;
  /** Its OpenAPI operation: `siteverify-<operation>`. */
  operation: string;
  summary: string;
}

/**
 * Where the REST facade serves siteverify: the procedure's own path first (its OpenAPI meta),
 * then ours of old and each provider's (shared/providers.ts), so a site written against one
 * changes only the host. A provider added there is served, documented and counted like the others.
 */
export const SITEVERIFY_PATHS: readonly SiteverifyPath[] = [
  {
    path: '/api/v1/siteverify',
    protocol: 'native',
    operation: 'verify',
    summary: 'Verify a token once (recommended path)',
  },
  { path: '/api/siteverify', protocol: 'native', operation: 'verifyUnversioned', summary: 'Verify a token once' },
  ...PROVIDERS.flatMap((p) => p.siteverify.map((s) => ({ ...s, protocol: p.name }))),
];

/**
 * Siteverify speaks the Turnstile/reCAPTCHA protocol, in the shape of the path it was called
 * at (src/captcha/protocols.ts), even when it fails before the verifier runs: a malformed,
 * oversized or wrongly typed body is a `bad-request` verdict, a failing dependency an
 * `internal-error` one (HTTP 200, as those services answer), and a rate-limited call HTTP 429
 * with `rate-limited` (our extension) and Retry-After.
 *
 * The one place siteverify's metrics are counted: every verdict answered, the procedure's
 * and these alike (by its first error code as answered), and each rate-limit refusal.
 */
export function siteverifyShape(protocol: Protocol, metrics?: Metrics): Middleware {
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
  const shaped = (ctx: Context) => {
    const verdict = ctx.body as Verdict | undefined;
    if (!verdict || typeof verdict.success !== 'boolean') return;
    const answered = inProtocol(verdict, protocol);
    ctx.body = answered;
    metrics?.countVerdict(answered);
  };
  return (ctx, next) =>
    next().then(
      () => shaped(ctx),
      (err: unknown) => answer(ctx, err),
    );
}
