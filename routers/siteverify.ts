import { z } from 'zod';
import { router, secretProcedure } from './trpc.ts';
import { captchaDeps } from './captcha-deps.ts';
import { verifyToken } from '../src/captcha/siteverify.ts';

/** Lenient on purpose: a missing or odd field is answered with its protocol error code. */
const field = (max: number) => z.string().max(max).optional();
const input = z.object({
  secret: field(256),
  response: field(4096),
  remoteip: field(64),
  sitekey: field(64),
  idempotency_key: field(128),
});

const verdict = z.object({
  success: z.boolean(),
  challenge_ts: z.string().optional(),
  hostname: z.string().optional(),
  'error-codes': z.array(z.string()),
  action: z.string().nullable().optional(),
  cdata: z.string().nullable().optional(),
  score: z.number().optional(),
});

const verify = (path: '/api/siteverify' | '/api/v1/siteverify', summary: string) =>
  secretProcedure
    .meta({
      openapi: { method: 'POST', path, summary, tags: ['siteverify'], protect: false, contentTypes: ['application/json', 'application/x-www-form-urlencoded'] },
      rateLimit: { max: 120, windowMs: 60_000 },
      errorShape: 'siteverify',
    })
    .input(input)
    .output(verdict)
    .mutation(async ({ ctx, input }) => ctx.metrics.countVerdict(await verifyToken(captchaDeps(ctx), input)));

export const siteverifyRouter = router({
  /** One-time token verification (Turnstile/reCAPTCHA protocol). */
  verify: verify('/api/siteverify', 'Verify a token once'),
  /** The same verifier; the recommended path for new integrations. */
  verifyV1: verify('/api/v1/siteverify', 'Verify a token once (recommended path)'),
});
