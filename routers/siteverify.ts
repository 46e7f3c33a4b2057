import { z } from 'zod';
import { restCallOf, router, secretProcedure } from './trpc.ts';
import type { InnerContext } from './context.ts';
import { captchaDeps } from './captcha-deps.ts';
import { siteverify, type SiteverifyOutcome } from '../src/captcha/siteverify.ts';
import { SITEVERIFY_PER_MINUTE } from '../src/captcha/siteverify-limit.ts';
import { AppError } from '../src/errors.ts';
import { inProtocol, type Protocol } from '../src/captcha/protocols.ts';

/** Lenient on purpose: a missing or odd field is answered with its protocol error code. */
const field = (max: number) => z.string().max(max).optional();
const input = z.object({
  secret: field(256),
  response: field(4096),
  remoteip: field(64),
  sitekey: field(64),
  idempotency_key: field(128),
});

/** A siteverify answer, every protocol's fields (protocols.ts picks each path's). */
export const siteverifyVerdict = z.object({
  success: z.boolean(),
  challenge_ts: z.string().optional(),
  hostname: z.string().optional(),
  'error-codes': z.array(z.string()),
  action: z.string().nullable().optional(),
  cdata: z.string().nullable().optional(),
  score: z.number().optional(),
  kind: z.enum(['v1', 'v2', 'v3']).optional(),
  credit: z.boolean().optional(),
});

type Path =
  '/api/siteverify' | '/api/v1/siteverify' | '/turnstile/v0/siteverify' | '/recaptcha/api/siteverify' | '/siteverify';

/**
 * One siteverify route. The limit (the spec's 120 a minute per client address and route,
 * raisable per site) is counted per site by the procedure (siteverify-limit.ts), so the
 * facade's per-route limiter leaves it alone (`perSite`). The REST route calls `answer`
 * through `restCall`, past tRPC's caller (decision 0013); /trpc calls the procedure.
 */
const verify = (path: Path, summary: string, protocol: Protocol = 'turnstile') => {
  const answer = async (ctx: InnerContext, call: z.output<typeof input>) => {
    const outcome = await siteverify(captchaDeps(ctx), call, { route: path, ip: ctx.request.ip });
    if ('refused' in outcome) throw refusal(outcome);
    return inProtocol(outcome.verdict, protocol);
  };
  return secretProcedure
    .meta({
      openapi: {
        method: 'POST',
        path,
        summary,
        tags: ['siteverify'],
        protect: false,
        contentTypes: ['application/json', 'application/x-www-form-urlencoded'],
      },
      rateLimit: { max: SITEVERIFY_PER_MINUTE, windowMs: 60_000, perSite: true },
      errorShape: 'siteverify',
      restCall: restCallOf(input, answer),
    })
    .input(input)
    .output(siteverifyVerdict)
    .mutation(({ ctx, input }) => answer(ctx, input));
};

/**
 * A call siteverify refused before any verdict: 429 with Retry-After (at most 60 s) and the
 * limit, or 503 when the store cannot count (the facade answers both in the protocol's shape).
 */
function refusal(outcome: Exclude<SiteverifyOutcome, { verdict: unknown }>): AppError {
  if (outcome.refused === 'unavailable') {
    return new AppError('UNAVAILABLE', 'The rate-limit store is unavailable; try again shortly.', {
      retryAfter: 5,
      cause: outcome.cause,
    });
  }
  return new AppError('RATE_LIMITED', 'Too many siteverify calls; retry within a minute.', {
    retryAfter: outcome.retryAfterSeconds,
    headers: { 'X-RateLimit-Limit': String(outcome.limit), 'X-RateLimit-Remaining': '0' },
  });
}

export const siteverifyRouter = router({
  /** One-time token verification (Turnstile/reCAPTCHA protocol). */
  verify: verify('/api/siteverify', 'Verify a token once'),
  /** The same verifier; the recommended path for new integrations. */
  verifyV1: verify('/api/v1/siteverify', 'Verify a token once (recommended path)'),
  /** At Cloudflare Turnstile's path, in its shape. */
  verifyTurnstile: verify('/turnstile/v0/siteverify', 'Verify a token once (Cloudflare Turnstile path and shape)'),
  /** At Google reCAPTCHA's path, in its shape. */
  verifyRecaptcha: verify(
    '/recaptcha/api/siteverify',
    'Verify a token once (Google reCAPTCHA path and shape)',
    'recaptcha',
  ),
  /** At hCaptcha's path, in its shape. */
  verifyHcaptcha: verify('/siteverify', 'Verify a token once (hCaptcha path and shape)', 'hcaptcha'),
});
