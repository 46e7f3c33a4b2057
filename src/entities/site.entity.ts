import type { InferEntity } from '@mikro-orm/core';
import { defineEntity, p } from '@mikro-orm/core';
import { UserSchema } from './user.entity.ts';

/* A site's gateway settings, stored as JSON (src/gateway/settings.ts validates them). */

/** What a rule does when it matches (docs/gateway.md, "Rules"). */
export const RULE_ACTIONS = ['allow', 'deny', 'challenge', 'weigh'] as const;
export type RuleAction = (typeof RULE_ACTIONS)[number];

/** Ready-made matchers a rule may name instead of (or besides) its own conditions. */
export const RULE_PRESETS = ['ai-crawlers', 'search-crawlers', 'feeds', 'link-previews'] as const;
export type RulePreset = (typeof RULE_PRESETS)[number];

/**
 * One rule of a site's gateway, as stored and as the API takes it. Every condition given must
 * match (an absent one matches anything); rules are tried in order.
 */
export interface GatewayRule {
  /** Shown in denials, metrics and the log; defaults to `rule <n>`. */
  name?: string;
  preset?: RulePreset;
  /** `/prefix`, or a glob with `*` over the whole path (query excluded). */
  path?: string;
  methods?: string[];
  /** A restricted regular expression on the User-Agent (case-insensitive; src/gateway/patterns.ts). */
  user_agent?: string;
  /** Header name to a restricted regular expression its value must match ("" : present). */
  headers?: Record<string, string>;
  /** CIDR blocks the client address must lie in. */
  networks?: string[];
  action: RuleAction;
  /** For `weigh`: added to the request's score (may be negative). */
  weight?: number;
}

/** A site's gateway settings. */
export interface GatewaySettings {
  /** Host names served through the gateway (no scheme, no port), each on one site only. */
  hosts: string[];
  /** Seconds a clearance cookie is good for. */
  clearance_ttl: number;
  /** Shown on the challenge page: who to contact when the check gets in the way. */
  contact: string;
  rules: GatewayRule[];
  /** Score at which weighed requests are challenged, and at which they are denied. */
  thresholds: { challenge: number; deny: number };
  /** What a request no rule decided and below the thresholds gets: `challenge` (default) or `allow`. */
  default_action: 'challenge' | 'allow';
  /**
   * A clearance's pace (src/gateway/pace.ts): pages it may open in 10 seconds, a minute and a
   * day before the next one is challenged again. Absent: the defaults.
   */
  pace?: { burst: number; per_minute: number; per_day: number };
  /** Pages one network may get a minute and a day through an allow rule that rests on what the client says alone. Absent: the defaults. */
  claim_budget?: { per_minute: number; per_day: number };
}

/**
 * A site using the challenge service: a public sitekey, a secret (stored as SHA-256 with a
 * lookup prefix, like API keys; it is high-entropy) and the origins its pages run on.
 */
export const SiteSchema = defineEntity({
  name: 'Site',
  tableName: 'sites',
  indexes: [{ properties: ['owner', 'id'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    owner: p.manyToOne(UserSchema).deleteRule('cascade'),
    name: p.string().length(200),
    sitekey: p.string().length(64).unique(),
    secretPrefix: p.string().length(16).unique(),
    secretHash: p.string().length(64),
    /** Normalised origins: `scheme://host[:port]`, or `scheme://*.domain` for subdomains. */
    origins: p.json<string[]>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
    secretRotatedAt: p.datetime().nullable(),
    /** How much proof of work every token costs before evidence: low, default or high (src/captcha/evidence.ts). */
    securityLevel: p.string().length(16).default('default'),
    /** Optional floor on the work: at least 2^minWorkBits expected SHA-256 hashes' worth per token. */
    minWorkBits: p.integer().nullable(),
    /** Siteverify calls a minute per client address for this site's secret; null: the spec's 120. */
    siteverifyPerMinute: p.integer().nullable(),
    /**
     * What siteverify does when the site's `remoteip` is on another network than the token was
     * solved from (src/captcha/siteverify.ts): enforce (refuse), score (pass at a low score) or off.
     */
    remoteipCheck: p.string().length(16).default('enforce'),
    /** Siteverify refuses tokens scoring below this, on every path (src/captcha/siteverify.ts). */
    minScore: p.double().default(0.5),
    /**
     * The site's own say over which client networks are hosting networks (src/net/hosting.ts):
     * AS numbers it adds to the shipped list and those it exempts; null: the list as shipped.
     */
    networks: p.json<{ hosting: number[]; exempt: number[] }>().nullable(),
    /** Gateway mode (src/gateway): the hosts this site protects and their rules; null when unused. */
    gateway: p.json<GatewaySettings>().nullable(),
  },
});

export type Site = InferEntity<typeof SiteSchema>;
