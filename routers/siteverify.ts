import { z } from 'zod';
import { publicProcedure, router } from './trpc.ts';
import { captchaDeps } from './captcha-deps.ts';
import { siteverify, type SiteverifyOutcome } from '../src/captcha/siteverify.ts';
import { AppError } from '../src/errors.ts';

/** Lenient on purpose: a missing or odd field is answered with its protocol error code. */
const field = (max: number) => z.string().max(max).optional();
const input = z.object({
  secret: field(256),
  response: field(4096),
  remoteip: field(64),
  sitekey: field(64),
  idempotency_key: field(128),
});

/** A siteverify verdict in our own shape; the facade renames and drops fields for each provider's path. */
export const siteverifyVerdict = z.object({
  success: z.boolean(),
  challenge_ts: z.string().optional(),
  hostname: z.string().optional(),
  'error-codes': z.array(z.string()),
  action: z.string().nullable().optional(),
  cdata: z.string().nullable().optional(),
  score: z.number().optional(),
  kind: z.enum(['v1', 'v2', 'v3']).optional(),
  reasons: z.array(z.string()).optional(),
});

/**
 * A call siteverify refused before any verdict: 429 with Retry-After (at most 60 s) and the
 * limit, or 503 when the store cannot count.
 */
function refusal(outcome: Exclude<SiteverifyOutcome, { verdict: unknown }>): AppError {
  if (outcome.refused === 'unavailable') {
    return new AppError('ERR_UNAVAILABLE', 'The rate-limit store is unavailable; try again shortly.', {
      retryAfter: 5,
      cause: outcome.cause,
    });
  }
  return new AppError('ERR_RATE_LIMITED', 'Too many siteverify calls; retry within a minute.', {
    retryAfter: outcome.retryAfterSeconds,
    headers: { 'X-RateLimit-Limit': String(outcome.limit), 'X-RateLimit-Remaining': '0' },
  });
}

export const siteverifyRouter = router({
  /**
   * One-time token verification. The REST facade serves it at our paths and at each
   * provider's, in that provider's shape (facade/siteverify.ts); /trpc serves it as it is, for
   * a site's own TypeScript services. The spec's limit (120 calls a minute per client address
   * and path, raisable per site) is counted here, since it needs the site (siteverify-limit.ts).
   */
  verify: publicProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/siteverify',
        summary: 'Verify a token once (recommended path)',
        tags: ['siteverify'],
        protect: false,
        contentTypes: ['application/json', 'application/x-www-form-urlencoded'],
      },
    })
    .input(input)
    .output(siteverifyVerdict)
    .mutation(async ({ ctx, input }) => {
      const outcome = await siteverify(captchaDeps(ctx), input, { route: ctx.request.route, ip: ctx.request.ip });
      if ('refused' in outcome) throw refusal(outcome);
      return outcome.verdict;
    }),
});
