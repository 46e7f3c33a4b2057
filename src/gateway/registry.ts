import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SiteSchema } from '../entities/site.entity.ts';
import { GatewayHostSchema } from '../entities/gateway-host.entity.ts';
import type { Stores } from '../stores/index.ts';
import { compileRule, type CompiledRule } from './rules.ts';
import type { GatewaySettings } from '../entities/site.entity.ts';

/** One protected site as the per-request check needs it, compiled once per change. */
export interface GatewaySite {
  sitekey: string;
  /** The site's lowest score a token may have to earn a clearance (its siteverify minimum). */
  minScore: number;
  settings: GatewaySettings;
  rules: CompiledRule[];
}

/** The store key whose value changes with every change of any site's gateway settings. */
const VERSION_KEY = 'gateway:version';
/** The stamp outlives any instance's cache; an expired stamp reads as a change, never as none. */
const VERSION_TTL_MS = 30 * 86_400_000;

/**
 * How long an instance trusts the version stamp it last read: a check reads the stamp at most
 * once in this time, so a change saved through another instance applies on every instance
 * within it (docs/gateway.md, "Changes take effect"). Changes saved through this process apply
 * at its next check.
 */
export const STAMP_MAX_AGE_MS = 250;

/** Changes announced through this process: every registry in it reloads at its next check. */
let localChanges = 0;

/**
 * Marks the gateway settings as changed, for every instance sharing the store: each instance
 * reloads them at its first check after its stamp is {@link STAMP_MAX_AGE_MS} old, and every
 * registry of this process at its next check. Call it after the change is committed.
 */
export async function announceGatewayChange(stores: Stores): Promise<void> {
  localChanges++;
  await stores.challenges.delete(VERSION_KEY);
  // Two writers racing: the loser's stamp is dropped, the winner's differs from every cache.
  await stores.challenges
    .create(VERSION_KEY, { v: randomBytes(12).toString('base64url') }, VERSION_TTL_MS)
    .catch(() => {});
  localChanges++;
}

/**
 * This instance's copy of every site's gateway settings, by host name. A check reads no
 * table, and the version stamp (in memory, or one Redis GET) at most every
 * {@link STAMP_MAX_AGE_MS}: the sites are read from the database only when the stamp changed.
 * While the store cannot be read, the settings last loaded stay in force; before any were
 * loaded, the check fails (the proxy refuses).
 */
export class GatewayRegistry {
  private byHost = new Map<string, GatewaySite>();
  private version: string | null | undefined = undefined;
  /** When the stamp in force was read (its read started), ms. */
  private stampReadAt = -Infinity;
  /** {@link localChanges} as of that read. */
  private seenLocal = -1;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly stores: Stores,
    private readonly em: () => EntityManager,
  ) {}

  /**
   * The protected site serving `host` (lower-case, no port), or null, from settings at most
   * {@link STAMP_MAX_AGE_MS} old; `undefined` when the stamp must be read first
   * ({@link siteFor}). Synchronous, so the common check needs no promise of its own.
   */
  current(host: string): GatewaySite | null | undefined {
    if (
      this.version === undefined ||
      this.seenLocal !== localChanges ||
      performance.now() - this.stampReadAt >= STAMP_MAX_AGE_MS
    )
      return undefined;
    return this.byHost.get(host) ?? null;
  }

  /** The protected site serving `host` (lower-case, no port), or null. */
  async siteFor(host: string): Promise<GatewaySite | null> {
    const site = this.current(host);
    if (site !== undefined) return site;
    // One read at a time: a check arriving meanwhile waits for the read under way, which
    // started after that check's cut-off (at most STAMP_MAX_AGE_MS before it).
    this.refreshing ??= this.fresh().finally(() => (this.refreshing = undefined));
    await this.refreshing;
    return this.byHost.get(host) ?? null;
  }

  private async fresh(): Promise<void> {
    const local = localChanges;
    const startedAt = performance.now();
    let stamp: { v: string } | null;
    try {
      stamp = (await this.stores.challenges.get(VERSION_KEY)) as { v: string } | null;
    } catch (err) {
      // The store is down: protected sites keep the settings this instance last loaded rather
      // than all failing at once (nothing is let through that those settings would refuse),
      // and the stamp is tried again after STAMP_MAX_AGE_MS, not on every check.
      if (this.version === undefined) throw err;
      this.stampReadAt = startedAt;
      return;
    }
    const current = stamp?.v ?? null;
    if (this.version === undefined || current !== this.version) await this.load(current);
    this.stampReadAt = startedAt;
    this.seenLocal = local;
  }
  private async load(version: string | null): Promise<void> {
    const em = this.em();
    const sites = await em.find(
      SiteSchema,
      { gateway: { $ne: null } },
      { fields: ['id', 'sitekey', 'minScore', 'gateway'] },
    );
    // A host serves the one site that holds it in gateway_hosts (its primary key).
    const owners = new Map(
      (await em.find(GatewayHostSchema, {}, { fields: ['host', 'site'] })).map((h) => [h.host, h.site.id]),
    );
    const byHost = new Map<string, GatewaySite>();
    for (const site of sites) {
      const settings = site.gateway;
      if (!settings) continue;
      const compiled: GatewaySite = {
        sitekey: site.sitekey,
        minScore: Number(site.minScore ?? 0.5),
        settings,
        rules: settings.rules.map(compileRule),
      };
      for (const host of settings.hosts) if (owners.get(host) === site.id) byHost.set(host, compiled);
    }
    this.byHost = byHost;
    this.version = version;
  }
}
