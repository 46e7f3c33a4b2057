import { z } from 'zod';
import type { ProbeBox } from './env-proof.ts';
/** Field bounds of a token's claims, enforced by tokens.ts `sealToken` and by these shapes. */
export const TOKEN_LIMITS = { action: 64, cdata: 255, site: 128, hostname: 253, net: 64 } as const;

/**
 * The challenge routes' wire contract, once: the routers validate with these schemas and the
 * widget imports the inferred types (type-only, so nothing of zod reaches the bundle).
 * Input fields the token carries are checked here with the token's own rule, so a request
 * the token could not seal is a 422 naming the field before any challenge is touched.
 */

export const sitekey = z.string().min(1).max(64);
export const challengeId = z.string().min(1).max(64);
/** reCAPTCHA's action alphabet: letters, digits, slash and underscore. */
export const action = z
  .string()
  .max(TOKEN_LIMITS.action)
  .regex(/^[A-Za-z0-9_/-]*$/, { error: 'The action may hold only letters, digits, "/", "_" and "-".' });
/** Printable ASCII, as the sealed token requires (tokens.ts). */
export const cdata = z
  .string()
  .max(TOKEN_LIMITS.cdata)
  .regex(/^[\x20-\x7e]*$/, {
    error: 'The cdata may hold only printable ASCII characters (no newlines or accented letters).',
  });
const flag = z.union([z.boolean(), z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1')]);
const count = z.coerce.number().int().min(0).max(86_400_000);
const text = (max: number) => z.string().max(max);
/** What the page shows about the browser (widget/page-signals.ts; judged by page-signals.ts). */
const pageSignals = z.object({
  cdp: flag,
  automation: flag,
  no_pointer: flag,
  tampered: flag,
  permission_mismatch: flag,
  ua: text(512),
  language: text(35),
  brands: text(512),
  platform: text(64),
  ua_data: z.enum(['full', 'empty', 'absent', 'mismatch']),
  webgl: text(200),
});
/** Telemetry sent by the widget: it can only raise the work asked or lower a score. */
export const telemetry = z
  .object({
    webdriver: flag.optional(),
    time_on_page_ms: count.optional(),
    interactions: count.optional(),
    outer_width: count.optional(),
    outer_height: count.optional(),
    inner_width: count.optional(),
    inner_height: count.optional(),
    screen_width: count.optional(),
    screen_height: count.optional(),
    dpr: count.optional(),
    page: pageSignals.optional(),
  })
  .optional()
  .transform((t) =>
    t
      ? {
          webdriver: t.webdriver,
          timeOnPageMs: t.time_on_page_ms,
          interactions: t.interactions,
          dpr: t.dpr,
          page: t.page,
          window:
            t.outer_width !== undefined &&
            t.outer_height !== undefined &&
            t.inner_width !== undefined &&
            t.inner_height !== undefined &&
            t.screen_width !== undefined &&
            t.screen_height !== undefined
              ? {
                  outer: [t.outer_width, t.outer_height] as const,
                  inner: [t.inner_width, t.inner_height] as const,
                  screen: [t.screen_width, t.screen_height] as const,
                }
              : undefined,
        }
      : undefined,
  );

/** A proof as sent back: the signed ticket, the nonces joined by commas, the environment answer. */
export const proofFields = {
  work: z.string().max(2048).optional(),
  solutions: z
    .string()
    .max(128 * 17)
    .optional(),
  env: z.string().max(1600).optional(),
};

export const workView = z.object({
  ticket: z.string(),
  id: z.string(),
  count: z.number().int(),
  bits: z.number().int(),
  expires_at: z.string(),
});
/** A box of the environment proof's paragraph (env-proof.ts ProbeBox). */
const probeBox: z.ZodType<ProbeBox> = z.lazy(() =>
  z.object({ s: z.record(z.string(), z.string()), c: z.array(probeBox).optional(), t: z.string().optional() }),
);
/** The environment proof's paragraph (null: the service had no engine to measure it). */
const envChallenge = z.object({ probe: probeBox.nullable() });
/** `private_token`: the service asks Private Access Tokens (PAT_ISSUERS): the widget fetches the challenge's private-token route once. */
export const workChallenge = workView.extend({ env: envChallenge, private_token: z.boolean() });

export const tokenOut = z.object({ token: z.string(), expires_at: z.string() });
export const v1View = z.object({
  challenge: z.string(),
  kind: z.literal('v1'),
  asset_url: z.string(),
  expires_at: z.string(),
  attempts_left: z.number().int(),
  regenerations_left: z.number().int(),
  work: workView.nullable(),
  no_image: workView.nullable(),
  /** The environment proof the answer carries (null for test sitekeys and after the managed flow's own). */
  env: envChallenge.nullable(),
  private_token: z.boolean(),
});
export const v1Verdict = z.union([
  tokenOut.extend({ success: z.literal(true) }),
  z.object({
    success: z.literal(false),
    error: z.enum(['wrong-answer', 'challenge-spent', 'invalid-proof']),
    attempts_left: z.number().int(),
    work: workView.nullable().optional(),
  }),
]);
export const managedOutcome = z.union([
  tokenOut.extend({ outcome: z.literal('pass') }),
  z.object({ outcome: z.literal('pow'), challenge: z.string(), work: workChallenge, expires_at: z.string() }),
  z.object({ outcome: z.literal('challenge'), challenge: v1View }),
]);
export const powVerdict = z.union([
  tokenOut.extend({ success: z.literal(true) }),
  z.object({ success: z.literal(false), error: z.literal('invalid-proof'), attempts_left: z.number().int() }),
  z.object({ success: z.literal(false), error: z.literal('challenge-required'), challenge: v1View }),
]);
/** v3: a work challenge (first step) or the token (second step, with the proof). */
export const scoreOutcome = z.union([tokenOut, z.object({ challenge: workChallenge })]);

export type WireWorkView = z.output<typeof workView>;
export type WireIssued = z.output<typeof tokenOut>;
export type WireV1View = z.output<typeof v1View>;
export type WireV1Verdict = z.output<typeof v1Verdict>;
export type WireManagedOutcome = z.output<typeof managedOutcome>;
export type WirePowVerdict = z.output<typeof powVerdict>;
export type WireScoreOutcome = z.output<typeof scoreOutcome>;
