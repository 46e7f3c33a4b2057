import { z } from 'zod';
import { originProcedure, router } from './trpc.ts';
import { browserRequest, captchaDeps } from './captcha-deps.ts';
import { admit } from '../src/captcha/context.ts';
import { createV1, regenerateV1, renderV1Asset, verifyV1 } from '../src/captcha/v1.ts';
import { issueScoreToken, startManaged, verifyManaged } from '../src/captcha/managed.ts';

const perMinute = (max: number) => ({ max, windowMs: 60_000 });

const sitekey = z.string().min(1).max(64);
const challengeId = z.string().min(1).max(64);
/** reCAPTCHA's action alphabet: letters, digits, slash and underscore. */
const action = z.string().max(64).regex(/^[A-Za-z0-9_/-]*$/, { error: 'The action may hold only letters, digits, "/", "_" and "-".' });
const cdata = z.string().max(255);
const flag = z.union([z.boolean(), z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1')]);
const count = z.coerce.number().int().min(0).max(86_400_000);
/** Telemetry sent by the widget; nothing else about the visitor is read. */
const telemetry = z
  .object({ webdriver: flag.optional(), time_on_page_ms: count.optional(), interactions: count.optional() })
  .optional()
  .transform((t) => (t ? { webdriver: t.webdriver, timeOnPageMs: t.time_on_page_ms, interactions: t.interactions } : undefined));

const tokenOut = z.object({ token: z.string(), expires_at: z.string() });
const v1View = z.object({
  challenge: z.string(),
  kind: z.literal('v1'),
  asset_url: z.string(),
  expires_at: z.string(),
  attempts_left: z.number().int(),
  regenerations_left: z.number().int(),
});
const v1Verdict = z.union([
  z.object({ success: z.literal(true), token: z.string(), expires_at: z.string() }),
  z.object({ success: z.literal(false), error: z.enum(['wrong-answer', 'challenge-spent']), attempts_left: z.number().int() }),
]);
const png = z
  .custom<Buffer>((v) => Buffer.isBuffer(v))
  .meta({ override: { type: 'string', format: 'binary', contentMediaType: 'image/png' } });

export const challengesRouter = router({
  /** v1: an explicit image challenge. */
  create: originProcedure
    .meta({
      openapi: { method: 'POST', path: '/api/v1/challenges', summary: 'Create an explicit (image) challenge', tags: ['challenges'], protect: false },
      rateLimit: perMinute(60),
      successStatus: 201,
    })
    .input(z.object({ sitekey, action: action.optional(), cdata: cdata.optional() }))
    .output(v1View)
    .mutation(async ({ ctx, input }) => {
      const deps = captchaDeps(ctx);
      const admitted = await admit(deps, input.sitekey, browserRequest(ctx));
      return createV1(deps, admitted, { action: input.action, cdata: input.cdata });
    }),

  asset: originProcedure
    .meta({
      openapi: { method: 'GET', path: '/api/v1/challenges/{challenge}/asset', summary: 'The challenge image (PNG)', tags: ['challenges'], protect: false },
      rateLimit: perMinute(120),
      responseType: 'image/png',
    })
    .input(z.object({ challenge: challengeId }))
    .output(png)
    .query(({ ctx, input }) => renderV1Asset(captchaDeps(ctx), input.challenge, browserRequest(ctx))),

  verify: originProcedure
    .meta({
      openapi: { method: 'POST', path: '/api/v1/challenges/{challenge}/verify', summary: 'Answer an image challenge', tags: ['challenges'], protect: false },
      rateLimit: perMinute(60),
    })
    .input(z.object({ challenge: challengeId, answer: z.string().max(32) }))
    .output(v1Verdict)
    .mutation(({ ctx, input }) => verifyV1(captchaDeps(ctx), input.challenge, input.answer, browserRequest(ctx))),

  regenerate: originProcedure
    .meta({
      openapi: { method: 'POST', path: '/api/v1/challenges/{challenge}/regenerate', summary: 'A new image for the challenge', tags: ['challenges'], protect: false },
      rateLimit: perMinute(30),
    })
    .input(z.object({ challenge: challengeId }))
    .output(v1View)
    .mutation(({ ctx, input }) => regenerateV1(captchaDeps(ctx), input.challenge, browserRequest(ctx))),

  /** v2: the server decides (pass, proof-of-work, or an image challenge). */
  managed: originProcedure
    .meta({
      openapi: { method: 'POST', path: '/api/v2/challenges', summary: 'Issue a managed challenge', tags: ['challenges'], protect: false },
      rateLimit: perMinute(60),
      successStatus: 201,
    })
    .input(z.object({ sitekey, action: action.optional(), cdata: cdata.optional(), telemetry }))
    .output(
      z.union([
        z.object({ outcome: z.literal('pass'), token: z.string(), expires_at: z.string() }),
        z.object({ outcome: z.literal('pow'), challenge: z.string(), salt: z.string(), difficulty: z.number().int(), expires_at: z.string() }),
        z.object({ outcome: z.literal('challenge'), challenge: v1View }),
      ]),
    )
    .mutation(({ ctx, input }) => startManaged(captchaDeps(ctx), input, browserRequest(ctx))),

  managedVerify: originProcedure
    .meta({
      openapi: { method: 'POST', path: '/api/v2/challenges/{challenge}/verify', summary: 'Complete a managed challenge (proof of work)', tags: ['challenges'], protect: false },
      rateLimit: perMinute(60),
    })
    .input(z.object({ challenge: challengeId, nonce: z.string().regex(/^\d{1,16}$/, { error: 'The nonce must be 1 to 16 decimal digits.' }) }))
    .output(
      z.union([
        z.object({ success: z.literal(true), token: z.string(), expires_at: z.string() }),
        z.object({ success: z.literal(false), error: z.literal('invalid-proof'), attempts_left: z.number().int() }),
      ]),
    )
    .mutation(({ ctx, input }) => verifyManaged(captchaDeps(ctx), input.challenge, input.nonce, browserRequest(ctx))),

  /** v3: an opaque score token; the score is revealed only by siteverify. */
  score: originProcedure
    .meta({
      openapi: { method: 'POST', path: '/api/v3/challenges', summary: 'Issue an opaque score token', tags: ['challenges'], protect: false },
      rateLimit: perMinute(60),
      successStatus: 201,
    })
    .input(z.object({ sitekey, action: action.min(1), cdata: cdata.optional(), telemetry }))
    .output(tokenOut)
    .mutation(({ ctx, input }) => issueScoreToken(captchaDeps(ctx), input, browserRequest(ctx))),
});
