import type { InferEntity } from '@mikro-orm/core';
import { defineEntity, p } from '@mikro-orm/core';
import { UserSchema } from './user.entity.ts';

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
  },
});

export type Site = InferEntity<typeof SiteSchema>;
