import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { SiteSchema, type Site } from '../entities/site.entity.ts';
import { GatewayHostSchema } from '../entities/gateway-host.entity.ts';
import { AppError, notFound } from '../errors.ts';
import type { Stores } from '../stores/index.ts';
import { announceGatewayChange } from './registry.ts';
import { compileRule } from './rules.ts';
import { claimWarnings, simulate, type PersonaResult } from './simulate.ts';
import type { GatewaySettings } from '../entities/site.entity.ts';
import { validateGateway } from './settings.ts';

async function ownSite(em: EntityManager, ownerId: number, sitekey: string): Promise<Site> {
  const site = await em.findOne(SiteSchema, { sitekey, owner: ownerId });
  if (!site) throw notFound('Site');
  return site;
}

/** The site's gateway settings, or null when the site protects no host. */
export async function getGateway(em: EntityManager, ownerId: number, sitekey: string): Promise<GatewaySettings | null> {
  return (await ownSite(em, ownerId, sitekey)).gateway ?? null;
}

/**
 * Saves (or, with null, removes) the site's gateway settings, then tells every instance (the
 * store's version stamp): the change applies at their next request. Validation (422, naming
 * the field): each host appears among the site's origins (the widget on the challenge page
 * runs at that origin) and is protected by no other site; the rules as `validateGateway` says.
 * The hosts are claimed in `gateway_hosts` in the same transaction, so of two sites saving one
 * host at once the second is refused by the database, not by a read that both passed.
 */
export async function setGateway(
  em: EntityManager,
  stores: Stores,
  ownerId: number,
  sitekey: string,
  input: GatewaySettings | null,
): Promise<GatewaySettings | null> {
  const site = await ownSite(em, ownerId, sitekey);
  const settings = input ? validateGateway(input) : null;
  if (settings) {
    const originHosts = new Set(
      site.origins.map((o) => {
        try {
          return new URL(o).hostname;
        } catch {
          return '';
        }
      }),
    );
    const errors: Record<string, string[]> = {};
    const others = await em.find(SiteSchema, { gateway: { $ne: null }, id: { $ne: site.id } }, { fields: ['gateway'] });
    const taken = new Set(others.flatMap((s) => s.gateway?.hosts ?? []));
    settings.hosts.forEach((h, i) => {
      if (!originHosts.has(h))
        (errors[`hosts.${i}`] ??= []).push(`Add an origin of ${h} (such as https://${h}) to the site first.`);
      else if (taken.has(h)) (errors[`hosts.${i}`] ??= []).push(`${h} is protected by another site.`);
    });
    if (Object.keys(errors).length) throw new AppError('ERR_VALIDATION', Object.values(errors)[0][0], { errors });
  }
  try {
    await em.transactional(async (tx) => {
      await tx.nativeDelete(GatewayHostSchema, { site: site.id });
      if (settings?.hosts.length)
        await tx.insertMany(
          GatewayHostSchema,
          settings.hosts.map((host) => ({ host, site: site.id })),
        );
      await tx.nativeUpdate(SiteSchema, { id: site.id }, { gateway: settings });
    });
  } catch (err) {
    if (!(err instanceof UniqueConstraintViolationException)) throw err;
    throw new AppError('ERR_VALIDATION', 'One of these hosts was just claimed by another site.', {
      errors: { hosts: ['One of these hosts was just claimed by another site.'] },
    });
  }
  await announceGatewayChange(stores);
  return settings;
}

/**
 * The gateway report: what each kind of visitor (src/gateway/simulate.ts) would get from the
 * site's saved rules on `pagePath` (feeds on `feedPath`), naming the deciding rule, with `ok`
 * false where it is not what a site usually wants, and the allow-by-claim rules that cover the
 * whole site as warnings. 404 when the site protects no host.
 */
export async function gatewayReport(
  em: EntityManager,
  ownerId: number,
  sitekey: string,
  pagePath: string,
  feedPath: string,
): Promise<{ checks: PersonaResult[]; warnings: string[] }> {
  const site = await ownSite(em, ownerId, sitekey);
  const settings = site.gateway;
  if (!settings) throw notFound('Gateway');
  const checks = await simulate(
    { sitekey: site.sitekey, minScore: Number(site.minScore), settings, rules: settings.rules.map(compileRule) },
    pagePath,
    feedPath,
  );
  return { checks, warnings: claimWarnings(settings) };
}

/**
 * The gateway report for an audit's URL, when its host is protected by a site of the audit's
 * own account (another account's rules are never shown): the page is the audited path, the
 * feed `/feed.xml`. Null otherwise.
 */
export async function gatewayFindings(
  em: EntityManager,
  ownerId: number,
  url: string,
): Promise<{ passed: boolean; checks: PersonaResult[] } | null> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return null;
  }
  // The host's one row names its site; the owner's other gateway sites are never read.
  const row = await em.findOne(
    GatewayHostSchema,
    { host: target.hostname.toLowerCase(), site: { owner: ownerId } },
    { populate: ['site'] },
  );
  const site = row?.site;
  if (!site?.gateway) return null;
  const checks = await simulate(
    {
      sitekey: site.sitekey,
      minScore: Number(site.minScore),
      settings: site.gateway,
      rules: site.gateway.rules.map(compileRule),
    },
    target.pathname || '/',
    '/feed.xml',
  );
  return { passed: checks.every((c) => c.ok), checks };
}
