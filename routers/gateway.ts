import { z } from 'zod';
import { gatewayReportOutput } from './schemas.ts';
import { apiKeyProcedure, router } from './trpc.ts';
import { gatewayReport, getGateway, setGateway } from '../src/gateway/sites.ts';
import { RULE_ACTIONS, RULE_PRESETS } from '../src/entities/site.entity.ts';
import { DEFAULT_CLEARANCE_TTL, DEFAULT_THRESHOLDS } from '../src/gateway/settings.ts';
import { DEFAULT_CLAIM_BUDGET, DEFAULT_PACE } from '../src/gateway/pace.ts';

const sitekey = z.string().min(1).max(64);

const rule = z.object({
  name: z.string().min(1).max(100).optional(),
  preset: z.enum(RULE_PRESETS).optional(),
  path: z.string().max(200).optional(),
  methods: z.array(z.string().max(16)).max(16).optional(),
  user_agent: z.string().max(200).optional(),
  headers: z.record(z.string().max(64), z.string().max(200)).optional(),
  networks: z.array(z.string().max(64)).max(100).optional(),
  action: z.enum(RULE_ACTIONS),
  weight: z.number().int().min(-1000).max(1000).optional(),
});

const settings = z.object({
  hosts: z.array(z.string().max(253)).min(1).max(50),
  clearance_ttl: z
    .number()
    .int()
    .min(60)
    .max(30 * 86_400),
  contact: z.string().max(500),
  rules: z.array(rule).max(200),
  thresholds: z.object({ challenge: z.number().int().min(1).max(10_000), deny: z.number().int().min(1).max(10_000) }),
  default_action: z.enum(['challenge', 'allow']),
  pace: z
    .object({
      burst: z.number().int().min(1).max(1_000_000),
      per_minute: z.number().int().min(1).max(1_000_000),
      per_day: z.number().int().min(1).max(100_000_000),
    })
    .optional(),
  claim_budget: z
    .object({ per_minute: z.number().int().min(1).max(1_000_000), per_day: z.number().int().min(1).max(100_000_000) })
    .optional(),
});

const settingsInput = settings.extend({
  clearance_ttl: settings.shape.clearance_ttl.default(DEFAULT_CLEARANCE_TTL),
  contact: settings.shape.contact.default(''),
  rules: settings.shape.rules.default([]),
  thresholds: settings.shape.thresholds.default(DEFAULT_THRESHOLDS),
  default_action: settings.shape.default_action.default('challenge'),
  pace: settings.shape.pace.unwrap().default({ ...DEFAULT_PACE }),
  claim_budget: settings.shape.claim_budget.unwrap().default({ ...DEFAULT_CLAIM_BUDGET }),
});

const answer = z.object({
  data: z.object({ sitekey: z.string(), gateway: settings.nullable() }),
  status: z.literal(200),
});

/** Gateway mode (docs/gateway.md): the hosts a site protects behind a proxy, and their rules. */
export const gatewayRouter = router({
  /** The site's gateway settings (null when it protects no host). */
  get: apiKeyProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/sites/{sitekey}/gateway',
        summary: "Read a site's gateway settings",
        tags: ['gateway'],
      },
    })
    .input(z.object({ sitekey }))
    .output(answer)
    .query(async ({ ctx, input }) => ({
      data: { sitekey: input.sitekey, gateway: await getGateway(ctx.em, ctx.user.id, input.sitekey) },
      status: 200 as const,
    })),

  /**
   * Replaces the site's gateway settings (null turns the gateway off); every instance applies
   * them at its next request. 422 names the bad field (`rules.2.user_agent`, `hosts.0`).
   */
  set: apiKeyProcedure
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/v1/sites/{sitekey}/gateway',
        summary: "Replace a site's gateway settings",
        tags: ['gateway'],
        contentTypes: ['application/json'],
      },
    })
    .input(z.object({ sitekey, gateway: settingsInput.nullable() }))
    .output(answer)
    .mutation(async ({ ctx, input }) => ({
      data: {
        sitekey: input.sitekey,
        gateway: await setGateway(ctx.em, ctx.stores, ctx.user.id, input.sitekey, input.gateway),
      },
      status: 200 as const,
    })),

  /**
   * What a verified Googlebot, an impostor, a feed reader, a link preview, a person after the
   * check, a script and an AI crawler would get from the saved rules, each naming the deciding
   * rule; `ok` is false where that is not what a site usually wants.
   */
  report: apiKeyProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/sites/{sitekey}/gateway/report',
        summary: "What kinds of visitors get from a site's gateway rules",
        tags: ['gateway'],
      },
    })
    .input(
      z.object({
        sitekey,
        path: z.string().startsWith('/').max(2048).default('/'),
        feed: z.string().startsWith('/').max(2048).default('/feed.xml'),
      }),
    )
    .output(
      z.object({
        data: z.object({
          sitekey: z.string(),
          ...gatewayReportOutput.shape,
          /** Allow rules resting on a client's claim alone that cover the whole site. */
          warnings: z.array(z.string()),
        }),
        status: z.literal(200),
      }),
    )
    .query(async ({ ctx, input }) => {
      const { checks, warnings } = await gatewayReport(ctx.em, ctx.user.id, input.sitekey, input.path, input.feed);
      return {
        data: { sitekey: input.sitekey, passed: checks.every((c) => c.ok), checks, warnings },
        status: 200 as const,
      };
    }),
});
