import { z } from 'zod';
import { originProcedure, router } from './trpc.ts';
import { browserRequest, captchaDeps, privateTokenConfig } from './captcha-deps.ts';
import { admit } from '../src/captcha/context.ts';
import { createV1, regenerateV1, renderV1Asset, verifyV1 } from '../src/captcha/v1.ts';
import { issueScoreToken, startManaged, verifyManaged } from '../src/captcha/managed.ts';
import { attestChallenge } from '../src/captcha/private-token.ts';
import {
  action,
  cdata,
  challengeId,
  managedOutcome,
  powVerdict,
  proofFields,
  scoreOutcome,
  sitekey,
  telemetry,
  v1Verdict,
  v1View,
} from '../src/captcha/wire.ts';

const perMinute = (max: number) => ({ max, windowMs: 60_000 });

const png = z
  .custom<Buffer>((v) => Buffer.isBuffer(v))
  .meta({ override: { type: 'string', format: 'binary', contentMediaType: 'image/png' } });

export const challengesRouter = router({
  /** v1: an explicit image challenge. */
  create: originProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/challenges',
        summary: 'Create an explicit (image) challenge',
        tags: ['challenges'],
        protect: false,
      },
      rateLimit: perMinute(60),
      successStatus: 201,
    })
    .input(z.object({ sitekey, action: action.optional(), cdata: cdata.optional() }))
    .output(v1View)
    .mutation(async ({ ctx, input }) => {
      const deps = captchaDeps(ctx);
      const admitted = await admit(deps, input.sitekey, browserRequest(ctx));
      return createV1(deps, admitted, { action: input.action, cdata: input.cdata }, browserRequest(ctx));
    }),

  asset: originProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/challenges/{challenge}/asset',
        summary: 'The challenge image (PNG)',
        tags: ['challenges'],
        protect: false,
      },
      rateLimit: perMinute(120),
      responseType: 'image/png',
    })
    .input(z.object({ challenge: challengeId }))
    .output(png)
    .query(({ ctx, input }) => renderV1Asset(captchaDeps(ctx), input.challenge, browserRequest(ctx))),

  verify: originProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/challenges/{challenge}/verify',
        summary: 'Answer an image challenge',
        tags: ['challenges'],
        protect: false,
      },
      rateLimit: perMinute(60),
    })
    .input(
      z.object({
        challenge: challengeId,
        answer: z.string().max(32).optional(),
        /** The way through without the image: the longer proof of `no_image` work instead of an answer. */
        no_image: z
          .union([z.boolean(), z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1')])
          .optional(),
        ...proofFields,
        telemetry,
      }),
    )
    .output(v1Verdict)
    .mutation(({ ctx, input }) => verifyV1(captchaDeps(ctx), input.challenge, input, browserRequest(ctx))),

  regenerate: originProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/challenges/{challenge}/regenerate',
        summary: 'A new image for the challenge',
        tags: ['challenges'],
        protect: false,
      },
      rateLimit: perMinute(30),
    })
    .input(z.object({ challenge: challengeId }))
    .output(v1View)
    .mutation(({ ctx, input }) => regenerateV1(captchaDeps(ctx), input.challenge, browserRequest(ctx))),

  /** v2: the server decides (pass, proof-of-work, or an image challenge). */
  managed: originProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v2/challenges',
        summary: 'Issue a managed challenge',
        tags: ['challenges'],
        protect: false,
      },
      rateLimit: perMinute(60),
      successStatus: 201,
    })
    .input(z.object({ sitekey, action: action.optional(), cdata: cdata.optional(), telemetry }))
    .output(managedOutcome)
    .mutation(({ ctx, input }) => startManaged(captchaDeps(ctx), input, browserRequest(ctx))),

  managedVerify: originProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v2/challenges/{challenge}/verify',
        summary: 'Complete a managed challenge (proof of work and environment proof)',
        tags: ['challenges'],
        protect: false,
      },
      rateLimit: perMinute(60),
    })
    .input(z.object({ challenge: challengeId, ...proofFields, telemetry }))
    .output(powVerdict)
    .mutation(({ ctx, input }) => verifyManaged(captchaDeps(ctx), input.challenge, input, browserRequest(ctx))),

  /**
   * A Private Access Token for a challenge (RFC 9577): 401 with the `WWW-Authenticate`
   * challenges until a valid token comes in `Authorization`, then the challenge is marked
   * attested. 404 when PAT_ISSUERS is empty.
   */
  privateToken: originProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v2/challenges/{challenge}/private-token',
        summary: 'Attest a challenge with a Private Access Token (401 with the token challenges until one is sent)',
        tags: ['challenges'],
        protect: false,
      },
      rateLimit: perMinute(60),
      errorCodes: ['ERR_PRIVATE_TOKEN', 'ERR_NOT_FOUND'],
    })
    .input(z.object({ challenge: challengeId, sitekey }))
    .output(z.object({ attested: z.literal(true) }))
    .query(({ ctx, input }) =>
      attestChallenge(captchaDeps(ctx), privateTokenConfig(ctx), input, ctx.request.authorization, browserRequest(ctx)),
    ),

  /** v3: an opaque score token; the score is revealed only by siteverify. */
  score: originProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v3/challenges',
        summary: 'Issue an opaque score token (first a work challenge, then the token for its proof)',
        tags: ['challenges'],
        protect: false,
      },
      rateLimit: perMinute(60),
      // A proof already spent, or expired: 404, like a spent challenge.
      errorCodes: ['ERR_NOT_FOUND'],
      successStatus: 201,
    })
    .input(z.object({ sitekey, action: action.min(1), cdata: cdata.optional(), telemetry, ...proofFields }))
    .output(scoreOutcome)
    .mutation(({ ctx, input }) => issueScoreToken(captchaDeps(ctx), input, browserRequest(ctx))),
});
