import { z } from 'zod';
import { apiKeyProcedure, router } from './trpc.ts';
import {
  createSite,
  deleteSite,
  describeSite,
  listSites,
  REMOTEIP_CHECKS,
  rotateSecret,
  updateSite,
} from '../src/captcha/sites.ts';
import { MAX_SITEVERIFY_PER_MINUTE } from '../src/captcha/siteverify-limit.ts';
import { announceGatewayChange } from '../src/gateway/registry.ts';

const origins = z.array(z.string().max(300)).min(1).max(100);
const sitekey = z.string().min(1).max(64);
/** Work every token costs: low, default or high (docs/challenges.md, "Security levels"). */
const securityLevel = z.enum(['low', 'default', 'high']);
/** An explicit floor on the work: at least 2^n expected hashes per token (16..30). */
const minWorkBits = z.number().int().min(16).max(30).nullable();
/** Siteverify calls a minute per client address; null: the spec's 120. */
const siteverifyPerMinute = z.number().int().min(1).max(MAX_SITEVERIFY_PER_MINUTE).nullable().optional();
/** What siteverify does with a `remoteip` on another network than the solver's (docs/challenges.md). */
const remoteipCheck = z.enum(REMOTEIP_CHECKS).optional();
/** Siteverify refuses tokens scoring below this, on every path; hundredths, 0 to 1 (docs/challenges.md, "Scores"). */
const minScore = z
  .number()
  .min(0)
  .max(1)
  .refine((v) => Number.isInteger(Math.round(v * 1e6) / 1e4), { error: 'The minimum score has at most two decimals.' })
  .optional();

/** AS numbers the site adds to the hosting networks and those it exempts (docs/challenges.md, "The network"); null: none. */
const asns = z.array(z.number().int().min(1).max(4_294_967_295)).max(1000);
const networks = z
  .object({ hosting: asns.default([]), exempt: asns.default([]) })
  .nullable()
  .optional();

/** Site management for typed clients on /trpc (and the CLI); not part of the REST surface. */
export const sitesRouter = router({
  /** Registers a site; the secret is in this answer only. */
  create: apiKeyProcedure
    .meta({ credential: true })
    .input(
      z.object({
        name: z.string().min(1).max(200),
        origins,
        security_level: securityLevel.optional(),
        min_work_bits: minWorkBits.optional(),
        siteverifyPerMinute,
        remoteip_check: remoteipCheck,
        min_score: minScore,
        networks,
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { site, secret } = await createSite(ctx.em, ctx.user.id, input);
      return { data: { ...describeSite(site), secret } };
    }),
  list: apiKeyProcedure.query(async ({ ctx }) => ({ data: (await listSites(ctx.em, ctx.user.id)).map(describeSite) })),
  update: apiKeyProcedure
    .input(
      z.object({
        sitekey,
        name: z.string().min(1).max(200).optional(),
        origins: origins.optional(),
        security_level: securityLevel.optional(),
        min_work_bits: minWorkBits.optional(),
        siteverifyPerMinute,
        remoteip_check: remoteipCheck,
        min_score: minScore,
        networks,
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const site = await updateSite(ctx.em, ctx.user.id, input.sitekey, input);
      // The gateway's registry holds the site's minimum score: every instance reloads it.
      await announceGatewayChange(ctx.stores);
      return { data: describeSite(site) };
    }),
  /** A new secret; the old one stops working at once. */
  rotateSecret: apiKeyProcedure
    .meta({ credential: true })
    .input(z.object({ sitekey }))
    .mutation(async ({ ctx, input }) => {
      const { site, secret } = await rotateSecret(ctx.em, ctx.user.id, input.sitekey);
      await announceGatewayChange(ctx.stores);
      return { data: { ...describeSite(site), secret } };
    }),
  /** Deletes the site, and its secret with it. */
  delete: apiKeyProcedure
    .meta({ credential: true })
    .input(z.object({ sitekey }))
    .mutation(async ({ ctx, input }) => {
      await deleteSite(ctx.em, ctx.user.id, input.sitekey);
      // Its hosts went with it (gateway_hosts cascades): no instance may answer for them any more.
      await announceGatewayChange(ctx.stores);
      return { sitekey: input.sitekey, object: 'site' as const, deleted: true as const };
    }),
});
