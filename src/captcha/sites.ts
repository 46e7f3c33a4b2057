import type { NetworkRules } from '../net/hosting.ts';
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { LRUCache } from 'lru-cache';
import { siteSecretScheme } from '../accounts/secret-scheme.ts';
import { SiteSchema, type Site } from '../entities/site.entity.ts';
import { UserSchema } from '../entities/user.entity.ts';
import { AppError, notFound } from '../errors.ts';
import { normaliseOrigin } from './origins.ts';
import type { SecurityLevel } from './evidence.ts';

/** What a browser route or siteverify needs to know of a site. */
export interface SiteView {
  sitekey: string;
  origins: string[];
  /** True for the Turnstile-style test sitekeys (any origin). */
  test: boolean;
  /** Work every token costs before evidence (src/captcha/evidence.ts); test keys: default. */
  level: SecurityLevel;
  /**
   * Optional floor: at least 2^minWorkBits expected SHA-256 hashes' worth per token
   * (work.ts ATTEMPT_IN_HASHES_LOG2).
   */
  minWorkBits: number | null;
  /** The site's additions to and exemptions from the hosting networks (src/net/hosting.ts); null: none. */
  networks?: NetworkRules | null;
}

/**
 * What siteverify does with a `remoteip` on another network (IPv4 /24, IPv6 /64) than the
 * one the token was solved from: `enforce` refuses it (`remoteip-mismatch`), `score` passes
 * it with its score lowered (siteverify.ts), `off` ignores `remoteip`.
 */
export const REMOTEIP_CHECKS = ['enforce', 'score', 'off'] as const;
export type RemoteipCheck = (typeof REMOTEIP_CHECKS)[number];

/** A site's security settings as the sites procedures and the CLI take them. */
export interface SecuritySettings {
  security_level?: SecurityLevel;
  /** Null clears the floor. */
  min_work_bits?: number | null;
  remoteip_check?: RemoteipCheck;
  /** Siteverify refuses tokens scoring below this (0 to 1, hundredths; 0 lets every token through). */
  min_score?: number;
  /** AS numbers the site counts as hosting networks beyond the shipped list, and those it never does (null: none). */
  networks?: NetworkRules | null;
}

/** A new site's minimum score: tokens a program without a browser engine earns (at most 0.3) stay below it. */
export const DEFAULT_MIN_SCORE = 0.5;

function levelOf(value: string | null | undefined): SecurityLevel {
  return value === 'low' || value === 'high' ? value : 'default';
}

/** The stored minimum score as a number (PostgreSQL's double precision may arrive as text). */
function scoreOf(value: unknown): number {
  const n = Number(value ?? DEFAULT_MIN_SCORE);
  return Number.isFinite(n) ? n : DEFAULT_MIN_SCORE;
}

function remoteipCheckOf(value: string | null | undefined): RemoteipCheck {
  return value === 'score' || value === 'off' ? value : 'enforce';
}

/** How long a site looked up by sitekey or secret is trusted without asking the database. */
const SITE_CACHE_MS = 5_000;

/** Site secrets follow the one prefixed-secret scheme (src/accounts/secret-scheme.ts). */
const hashSecret = (secret: string) => siteSecretScheme.hash(secret);
const newSecret = () => siteSecretScheme.generate();

function newSitekey(): string {
  return `sk_${randomBytes(15).toString('base64url')}`;
}

/** Validates and normalises registered origins; a 422 on `origins` names the bad one. */
export function parseOrigins(input: readonly string[]): string[] {
  if (input.length === 0)
    throw new AppError('ERR_VALIDATION', 'At least one origin is required.', {
      errors: { origins: ['At least one origin is required.'] },
    });
  const out = new Set<string>();
  for (const raw of input) {
    const parsed = normaliseOrigin(raw);
    if (!parsed.ok) throw new AppError('ERR_VALIDATION', parsed.reason, { errors: { origins: [parsed.reason] } });
    out.add(parsed.origin);
  }
  return [...out];
}

/** Creates a site; the plaintext secret is returned once and only its hash is kept. */
export async function createSite(
  em: EntityManager,
  ownerId: number,
  input: { name: string; origins: string[]; siteverifyPerMinute?: number | null } & SecuritySettings,
) {
  const origins = parseOrigins(input.origins);
  const { secret, prefix } = newSecret();
  const now = new Date();
  const site = em.create(SiteSchema, {
    owner: em.getReference(UserSchema, ownerId),
    name: input.name,
    sitekey: newSitekey(),
    secretPrefix: prefix,
    secretHash: hashSecret(secret).toString('hex'),
    origins,
    createdAt: now,
    updatedAt: now,
    secretRotatedAt: null,
    securityLevel: input.security_level ?? 'default',
    minWorkBits: input.min_work_bits ?? null,
    siteverifyPerMinute: input.siteverifyPerMinute ?? null,
    remoteipCheck: input.remoteip_check ?? 'enforce',
    minScore: input.min_score ?? DEFAULT_MIN_SCORE,
    networks: input.networks ?? null,
  });
  await em.persistAndFlush(site);
  return { site, secret };
}

export async function listSites(em: EntityManager, ownerId: number): Promise<Site[]> {
  return em.find(SiteSchema, { owner: ownerId }, { orderBy: { id: 'asc' } });
}

async function ownSite(em: EntityManager, ownerId: number, sitekey: string): Promise<Site> {
  const site = await em.findOne(SiteSchema, { sitekey, owner: ownerId });
  if (!site) throw notFound('Site');
  return site;
}

export async function updateSite(
  em: EntityManager,
  ownerId: number,
  sitekey: string,
  change: { name?: string; origins?: string[]; siteverifyPerMinute?: number | null } & SecuritySettings,
): Promise<Site> {
  const site = await ownSite(em, ownerId, sitekey);
  if (change.security_level) site.securityLevel = change.security_level;
  if (change.min_work_bits !== undefined) site.minWorkBits = change.min_work_bits;
  if (change.remoteip_check) site.remoteipCheck = change.remoteip_check;
  if (change.min_score !== undefined) site.minScore = change.min_score;
  if (change.networks !== undefined) site.networks = change.networks;
  if (change.siteverifyPerMinute !== undefined) site.siteverifyPerMinute = change.siteverifyPerMinute;
  if (change.origins) site.origins = parseOrigins(change.origins);
  if (change.name) site.name = change.name;
  await em.flush();
  forgetSite(site);
  return site;
}

/** Replaces the secret; the old one stops working at once. */
export async function rotateSecret(em: EntityManager, ownerId: number, sitekey: string) {
  const site = await ownSite(em, ownerId, sitekey);
  const { secret, prefix } = newSecret();
  forgetSite(site);
  site.secretPrefix = prefix;
  site.secretHash = hashSecret(secret).toString('hex');
  site.secretRotatedAt = new Date();
  await em.flush();
  return { site, secret };
}

export async function deleteSite(em: EntityManager, ownerId: number, sitekey: string): Promise<void> {
  const site = await ownSite(em, ownerId, sitekey);
  await em.removeAndFlush(site);
  forgetSite(site);
}

/**
 * Siteverify resolves the secret on every call; known secrets are cached by their hash for
 * `SITE_CACHE_MS` (rotation and deletion here drop the entry at once; another instance
 * stops accepting an old secret within that time). Unknown secrets are not cached.
 */
interface SecretEntry extends SiteBySecret {
  /** Trusted until then (on the caller's clock, `now`). */
  until: number;
}

/**
 * The caches of site lookups: past `max` entries the least recently used go first (instead
 * of emptying the whole cache), and an entry is trusted for `SITE_CACHE_MS` on the caller's
 * clock. One per process by default; tests and benchmarks may pass their own.
 */
export interface SiteCaches {
  bySecretHash: LRUCache<string, SecretEntry>;
  byKey: LRUCache<string, { view: SiteView | null; until: number }>;
}

export function createSiteCaches(opts: { max?: number } = {}): SiteCaches {
  const max = opts.max ?? 10_000;
  return { bySecretHash: new LRUCache({ max }), byKey: new LRUCache({ max }) };
}

const processCaches = createSiteCaches();

/** What siteverify needs of the site a secret belongs to. */
export interface SiteBySecret {
  sitekey: string;
  siteverifyPerMinute: number | null;
  remoteipCheck: RemoteipCheck;
  minScore: number;
}

/**
 * The sitekey a secret belongs to, compared in constant time against the stored hash;
 * null for an unknown secret.
 */
export async function siteBySecret(
  /** The EntityManager to read the site with, asked for only when the cache has no entry. */
  em: () => EntityManager,
  secret: string,
  now = Date.now(),
  caches: SiteCaches = processCaches,
): Promise<SiteBySecret | null> {
  const cacheKey = hashSecret(secret).toString('hex');
  const cached = caches.bySecretHash.get(cacheKey);
  if (cached && cached.until > now) {
    const { until: _until, ...found } = cached;
    return found;
  }
  const prefix = siteSecretScheme.prefixOf(secret);
  const site = prefix
    ? await em().findOne(
        SiteSchema,
        { secretPrefix: prefix },
        { fields: ['sitekey', 'secretHash', 'siteverifyPerMinute', 'remoteipCheck', 'minScore'] },
      )
    : null;
  if (!siteSecretScheme.matches(secret, site?.secretHash) || !site) return null;
  const found: SiteBySecret = {
    sitekey: site.sitekey,
    siteverifyPerMinute: site.siteverifyPerMinute ?? null,
    remoteipCheck: remoteipCheckOf(site.remoteipCheck),
    minScore: scoreOf(site.minScore),
  };
  caches.bySecretHash.set(cacheKey, { ...found, until: now + SITE_CACHE_MS });
  return found;
}

function forgetSite(site: Site, caches: SiteCaches = processCaches): void {
  caches.byKey.delete(site.sitekey);
  caches.bySecretHash.delete(site.secretHash);
}

/**
 * Browser routes look sites up on every request; a short cache spares the database. Changes
 * made through this process apply at once, elsewhere within `SITE_CACHE_MS`.
 */
export async function siteByKey(
  em: EntityManager,
  sitekey: string,
  now = Date.now(),
  caches: SiteCaches = processCaches,
): Promise<SiteView | null> {
  const cached = caches.byKey.get(sitekey);
  if (cached && cached.until > now) return cached.view;
  const site = await em.findOne(
    SiteSchema,
    { sitekey },
    { fields: ['sitekey', 'origins', 'securityLevel', 'minWorkBits', 'networks'] },
  );
  const view = site
    ? {
        sitekey: site.sitekey,
        origins: site.origins,
        test: false,
        level: levelOf(site.securityLevel),
        minWorkBits: site.minWorkBits ?? null,
        networks: site.networks ?? null,
      }
    : null;
  caches.byKey.set(sitekey, { view, until: now + SITE_CACHE_MS });
  return view;
}

/** The public view of a site for its owner (never the secret or its hash). */
export function describeSite(site: Site) {
  return {
    name: site.name,
    sitekey: site.sitekey,
    origins: site.origins,
    secret_prefix: `sec_${site.secretPrefix}`,
    security_level: levelOf(site.securityLevel),
    min_work_bits: site.minWorkBits ?? null,
    created_at: site.createdAt.toISOString(),
    secret_rotated_at: site.secretRotatedAt ? site.secretRotatedAt.toISOString() : null,
    siteverify_per_minute: site.siteverifyPerMinute ?? null,
    remoteip_check: remoteipCheckOf(site.remoteipCheck),
    min_score: scoreOf(site.minScore),
    networks: site.networks ?? null,
  };
}
