import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import type { Stores } from '../stores/index.ts';
import { checkToken, spendToken, type TokenRefusal } from '../captcha/token-rules.ts';
import { recordClearance } from '../captcha/evidence.ts';
import { networkKey } from '../net/client-key.ts';
import { PROBE_FONT_PATH } from '../bundles.ts';
import { issueClearance } from './clearance.ts';
import { VerifiedClearances, type VerifiedClearance } from './verified-clearances.ts';
import { CrawlerVerifier } from './crawlers.ts';
import {
  isNavigation,
  one,
  readOriginal,
  TrustedProxies,
  type Headers,
  type OriginalRequest,
  type ProxyProtocol,
} from './forwarded.ts';
import { countClaim, countPage, isPage, isSpent } from './pace.ts';
import { GatewayRegistry, type GatewaySite } from './registry.ts';
import { evaluate } from './rules.ts';
import { targetUri } from './target.ts';

/** Where the challenge page and its scripts live on every protected host. */
export const GATEWAY_PREFIX = '/.auditcaptcha';

/**
 * Paths of ours a protected host serves under the prefix (given without it): the challenge
 * page, the clearance form's target, the widget's script, worker and font, and its challenge
 * API. Only these exact paths pass the gateway unchecked; anything else under the prefix is
 * a page of the site like any other.
 */
export function servedUnderPrefix(rest: string): boolean {
  return (
    rest === '/challenge' ||
    rest === '/clearance' ||
    rest === '/widget.js' ||
    rest === '/widget-worker.js' ||
    rest === PROBE_FONT_PATH ||
    /^\/api\/v[123]\/challenges(\/[A-Za-z0-9_-]{1,64}(\/(asset|verify|regenerate|private-token))?)?$/.test(rest)
  );
}

/** Whether a canonical path is one of the gateway's own (see {@link servedUnderPrefix}). */
function isGatewayPath(path: string): boolean {
  return path.startsWith(`${GATEWAY_PREFIX}/`) && servedUnderPrefix(path.slice(GATEWAY_PREFIX.length));
}

/**
 * What the forward-auth endpoint answers, transport-neutral:
 * - `pass`: 2xx, the proxy serves the request;
 * - `challenge`: a navigation without clearance: a redirect to the challenge page (nginx: 401,
 *   which its `error_page 401` turns into the page);
 * - `refuse`: not a navigation and no clearance: 401 with a short plain-text reason;
 * - `deny`: a deny rule or the deny threshold: 403 with a plain-text reason;
 * - `unknown`: the host is not protected by any site, or the caller is not a trusted proxy: 403.
 */
export type GatewayOutcome = 'pass' | 'challenge' | 'refuse' | 'deny' | 'unknown';

export interface GatewayDecision {
  outcome: GatewayOutcome;
  /**
   * The rule that decided (`clearance` for a valid cookie, `default`, `score`; `target` for a
   * target with no single reading, `pace` for a clearance past its pace).
   */
  rule: string;
  /** For `challenge`: the same-host path of the challenge page, with the original URI to return to. */
  location?: string;
  /** For `refuse`, `deny` and `unknown`: one plain sentence. */
  reason?: string;
  original: OriginalRequest;
}

/** A relative path back to on the same host: starts with one `/`, no scheme, no backslash. */
export function safeReturnPath(text: string | undefined): string {
  if (!text || text.length > 2048) return '/';
  if (!text.startsWith('/') || text.startsWith('//') || text.includes('\\')) return '/';
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) < 0x20 || text.charCodeAt(i) === 0x7f) return '/';
  if (text.startsWith(GATEWAY_PREFIX)) return '/';
  return text;
}

export function challengeLocation(uri: string): string {
  return `${GATEWAY_PREFIX}/challenge?return=${encodeURIComponent(safeReturnPath(uri))}`;
}

/** Where a challenged request returns to: its canonical path and query, or the home page. */
export function returnUriOf(original: OriginalRequest): string {
  return original.target.ok ? targetUri(original.target) : '/';
}

/** The result of redeeming a widget token for a clearance. */
export type ClearanceResult =
  { ok: true; cookie: string; maxAge: number; site: GatewaySite; returnTo: string } | { ok: false; reason: string };

/**
 * Gateway mode on one instance: the registry of protected sites (in memory, refreshed when the
 * store's version stamp changes), the crawler verifier with its DNS cache, and the two things
 * a proxy asks of us: may this request pass, and may this token become a clearance.
 */
/** What the challenge page says when a widget token does not buy a clearance. */
const refusalReasons: Record<TokenRefusal, string> = {
  malformed: 'The check could not be read.',
  'other-site': 'The check was for another site.',
  expired: 'The check expired; please try again.',
  'other-network': 'The check was solved on another network.',
  'below-minimum': 'The check did not pass.',
};

export class Gateway {
  readonly registry: GatewayRegistry;
  readonly crawlers: CrawlerVerifier;
  private readonly clearances = new VerifiedClearances(() => this.key);
  private readonly proxies: TrustedProxies;

  constructor(
    private readonly config: Config,
    private readonly stores: Stores,
    em: () => EntityManager,
  ) {
    this.registry = new GatewayRegistry(stores, em);
    this.proxies = new TrustedProxies(config.GATEWAY_TRUSTED_PROXIES);
    this.crawlers = new CrawlerVerifier({
      servers: config.GATEWAY_DNS_SERVERS,
      timeoutMs: config.GATEWAY_DNS_TIMEOUT_MS,
    });
  }

  private get key(): Buffer {
    if (!this.config.tokenKey) throw new Error('TOKEN_KEY was not resolved at start');
    return this.config.tokenKey;
  }

  /**
   * The original request, built once per request: of a forward-auth call (`protocol`: the
   * proxy's, from the endpoint's path) or of a request the proxy passed on to us.
   */
  original(
    peer: string,
    headers: Headers,
    own: { method: string; url: string },
    protocol?: ProxyProtocol,
  ): OriginalRequest {
    return readOriginal(peer, headers, own, this.proxies, protocol);
  }

  /** Whether `cookie` is a clearance of `site` for this client, and not spent by its pace. */
  async cleared(
    site: GatewaySite,
    original: OriginalRequest,
    headers: Headers,
    cookie: string | undefined,
    now: number,
  ): Promise<boolean> {
    const valid = this.validClearance(site, original, headers, cookie, now);
    return valid !== null && !(await isSpent(this.stores, valid.pace));
  }

  private validClearance(
    site: GatewaySite,
    original: OriginalRequest,
    headers: Headers,
    cookie: string | undefined,
    now: number,
  ): VerifiedClearance | null {
    return this.clearances.verify(
      cookie,
      { sitekey: site.sitekey, ip: original.ip, userAgent: one(headers, 'user-agent') ?? '' },
      now,
    );
  }

  /** The forward-auth decision for one request (see {@link GatewayOutcome}). */
  async check(
    original: OriginalRequest,
    headers: Headers,
    cookie: string | undefined,
    now = Date.now(),
  ): Promise<GatewayDecision> {
    if (!original.trusted)
      return {
        outcome: 'unknown',
        rule: 'untrusted-proxy',
        reason: 'The gateway only answers its configured proxies.',
        original,
      };
    // Settings read at most STAMP_MAX_AGE_MS ago need no store read and no promise.
    let site = this.registry.current(original.host);
    if (site === undefined) site = await this.registry.siteFor(original.host);
    if (!site)
      return {
        outcome: 'unknown',
        rule: 'unknown-host',
        reason: 'This host is not protected by the gateway.',
        original,
      };
    const target = original.target;
    if (!target.ok)
      return { outcome: 'deny', rule: 'target', reason: `Refused: the address ${target.reason}.`, original };
    // The challenge page and its scripts must always load: at their exact paths only.
    if (isGatewayPath(target.path)) return { outcome: 'pass', rule: 'gateway', original };
    const verdict = await evaluate(
      site.rules,
      site.settings.thresholds,
      site.settings.default_action,
      {
        method: original.method,
        readings: target.readings,
        headers: headers as Record<string, string | undefined>,
        ip: original.ip,
      },
      this.crawlers,
    );
    let rule = verdict.rule;
    if (verdict.action === 'allow') {
      // A rule resting on the client's word alone lets a network through at a pace, then challenges.
      if (!verdict.byClaim || (await countClaim(this.stores, site.sitekey, rule, original.ip, site.settings)))
        return { outcome: 'pass', rule, original };
      rule = `${rule} (budget)`;
    }
    if (verdict.action === 'deny')
      return { outcome: 'deny', rule, reason: `Refused by this site's rule "${rule}".`, original };
    const valid = this.validClearance(site, original, headers, cookie, now);
    if (valid) {
      if (!isPage(target.readings)) return { outcome: 'pass', rule: 'clearance', original };
      if (await countPage(this.stores, valid.pace, site.settings, valid.expiresMs, now))
        return { outcome: 'pass', rule: 'clearance', original };
      rule = 'pace';
    }
    if (isNavigation(original.method, headers))
      return { outcome: 'challenge', rule, location: challengeLocation(returnUriOf(original)), original };
    return {
      outcome: 'refuse',
      rule,
      reason: 'This address needs a browser check first: open the page in a browser.',
      original,
    };
  }

  /**
   * Redeems a widget token for a clearance on the request's host: the token must open under
   * our key, be of the host's site and issued for this host name, unexpired, scoring at least
   * the site's minimum, and is spent once (the same atomic redemption as siteverify). Each
   * clearance raises the price of the network's next one on this site (evidence.ts).
   */
  async clear(
    original: OriginalRequest,
    headers: Headers,
    token: string,
    returnTo: string | undefined,
    now = Date.now(),
  ): Promise<ClearanceResult> {
    const site = await this.registry.siteFor(original.host);
    if (!site) return { ok: false, reason: 'This host is not protected by the gateway.' };
    if (!token) return { ok: false, reason: 'The check did not finish.' };
    const checked = checkToken(
      token,
      this.key,
      {
        sitekey: site.sitekey,
        minScore: site.minScore,
        hostname: original.host,
        network: networkKey(original.ip),
        networkCheck: 'enforce',
      },
      now,
    );
    if (!checked.ok) return { ok: false, reason: refusalReasons[checked.refusal] };
    if (!(await spendToken(this.stores, checked.claims, checked.markTtl)))
      return { ok: false, reason: 'This check was already used; please try again.' };
    await recordClearance(this.stores, site.sitekey, original.ip);
    const ttl = site.settings.clearance_ttl;
    const cookie = issueClearance(
      this.key,
      { sitekey: site.sitekey, ip: original.ip, userAgent: one(headers, 'user-agent') ?? '' },
      now,
      ttl,
    );
    return { ok: true, cookie, maxAge: ttl, site, returnTo: safeReturnPath(returnTo) };
  }
}
