import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import type { Stores } from '../stores/index.ts';
import { isExpired, MAX_TOKEN_LENGTH, openToken, TOKEN_TTL_MS } from '../captcha/tokens.ts';
import { networkKey } from '../net/client-key.ts';
import { checkClearance, CLEARANCE_COOKIE, issueClearance, readCookie } from './clearance.ts';
import { CrawlerVerifier } from './crawlers.ts';
import { isNavigation, one, readOriginal, type Headers, type OriginalRequest } from './forwarded.ts';
import { GatewayRegistry, type GatewaySite } from './registry.ts';
import { evaluate } from './rules.ts';

/** Where the challenge page and its scripts live on every protected host. */
export const GATEWAY_PREFIX = '/.auditcaptcha';

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
  /** The rule that decided (`clearance` for a valid cookie, `default`, `score`). */
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

/** The result of redeeming a widget token for a clearance. */
export type ClearanceResult =
  { ok: true; cookie: string; maxAge: number; site: GatewaySite; returnTo: string } | { ok: false; reason: string };

/**
 * Gateway mode on one instance: the registry of protected sites (in memory, refreshed when the
 * store's version stamp changes), the crawler verifier with its DNS cache, and the two things
 * a proxy asks of us: may this request pass, and may this token become a clearance.
 */
export class Gateway {
  readonly registry: GatewayRegistry;
  readonly crawlers: CrawlerVerifier;

  constructor(
    private readonly config: Config,
    private readonly stores: Stores,
    em: () => EntityManager,
  ) {
    this.registry = new GatewayRegistry(stores, em);
    this.crawlers = new CrawlerVerifier({
      servers: config.GATEWAY_DNS_SERVERS,
      timeoutMs: config.GATEWAY_DNS_TIMEOUT_MS,
    });
  }

  private get key(): Buffer {
    if (!this.config.tokenKey) throw new Error('TOKEN_KEY was not resolved at start');
    return this.config.tokenKey;
  }

  /** The original request of a forward-auth call or a proxied page request. */
  original(peer: string, headers: Headers, own: { method: string; url: string }): OriginalRequest {
    return readOriginal(peer, headers, own, this.config.GATEWAY_TRUSTED_PROXIES);
  }

  /** Whether the request carries a valid clearance for `site`. */
  cleared(site: GatewaySite, original: OriginalRequest, headers: Headers, now: number): boolean {
    return checkClearance(
      this.key,
      readCookie(one(headers, 'cookie'), CLEARANCE_COOKIE),
      { sitekey: site.sitekey, ip: original.ip, userAgent: one(headers, 'user-agent') ?? '' },
      now,
    );
  }

  /** The forward-auth decision for one request (see {@link GatewayOutcome}). */
  async check(
    peer: string,
    headers: Headers,
    own: { method: string; url: string },
    now = Date.now(),
  ): Promise<GatewayDecision> {
    const original = this.original(peer, headers, own);
    if (!original.trusted)
      return {
        outcome: 'unknown',
        rule: 'untrusted-proxy',
        reason: 'The gateway only answers its configured proxies.',
        original,
      };
    const site = await this.registry.siteFor(original.host);
    if (!site)
      return {
        outcome: 'unknown',
        rule: 'unknown-host',
        reason: 'This host is not protected by the gateway.',
        original,
      };
    // The challenge page and its scripts must always load.
    if (original.path === GATEWAY_PREFIX || original.path.startsWith(`${GATEWAY_PREFIX}/`))
      return { outcome: 'pass', rule: 'gateway', original };
    const verdict = await evaluate(
      site.rules,
      site.settings.thresholds,
      site.settings.default_action,
      {
        method: original.method,
        path: original.path,
        headers: headers as Record<string, string | undefined>,
        ip: original.ip,
      },
      this.crawlers,
    );
    if (verdict.action === 'allow') return { outcome: 'pass', rule: verdict.rule, original };
    if (verdict.action === 'deny')
      return {
        outcome: 'deny',
        rule: verdict.rule,
        reason: `Refused by this site's rule "${verdict.rule}".`,
        original,
      };
    if (this.cleared(site, original, headers, now)) return { outcome: 'pass', rule: 'clearance', original };
    if (isNavigation(original.method, headers))
      return { outcome: 'challenge', rule: verdict.rule, location: challengeLocation(original.uri), original };
    return {
      outcome: 'refuse',
      rule: verdict.rule,
      reason: 'This address needs a browser check first: open the page in a browser.',
      original,
    };
  }

  /**
   * Redeems a widget token for a clearance on the request's host: the token must open under
   * our key, be of the host's site and issued for this host name, unexpired, scoring at least
   * the site's minimum, and is spent once (the same atomic redemption as siteverify).
   */
  async clear(
    peer: string,
    headers: Headers,
    own: { method: string; url: string },
    token: string,
    returnTo: string | undefined,
    now = Date.now(),
  ): Promise<ClearanceResult> {
    const original = this.original(peer, headers, own);
    const site = await this.registry.siteFor(original.host);
    if (!site) return { ok: false, reason: 'This host is not protected by the gateway.' };
    if (!token || token.length > MAX_TOKEN_LENGTH) return { ok: false, reason: 'The check did not finish.' };
    const opened = openToken(token, this.key);
    if (!opened.ok) return { ok: false, reason: 'The check could not be read.' };
    const c = opened.claims;
    if (c.site !== site.sitekey || c.hostname !== original.host)
      return { ok: false, reason: 'The check was for another site.' };
    if (isExpired(c, now)) return { ok: false, reason: 'The check expired; please try again.' };
    if (c.net && c.net !== networkKey(original.ip))
      return { ok: false, reason: 'The check was solved on another network.' };
    if ((c.score ?? 0) < site.minScore) return { ok: false, reason: 'The check did not pass.' };
    const spent = await this.stores.spentTokens.redeem(c.id, Math.max(1000, c.iat + TOKEN_TTL_MS - now) + 60_000);
    if (!spent) return { ok: false, reason: 'This check was already used; please try again.' };
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
