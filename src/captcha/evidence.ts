import type { Stores } from '../stores/index.ts';
import { clientKey, networkKey } from '../net/client-key.ts';
import type { WorkSize } from './work.ts';

/**
 * Server-observed evidence about a challenge request, and what it costs.
 *
 * The server counts what it sees (requests per client, per network, per site in the last
 * minute; failed proofs and wrong answers; puzzles issued but never redeemed) and reads the
 * request's headers. That alone sizes the proof of work. Client telemetry is read only to
 * make things worse for the client: `webdriver: true` adds work and lowers the score, a
 * missing interaction lowers the score; nothing the client says can lower its work or raise
 * its score.
 *
 * Work size (see {@link workSize}): the site's level gives `count` sub-puzzles of `bits` bits.
 * Extra bits (each doubles the work):
 *
 * | reason            | condition                                                         | extra bits |
 * |-------------------|-------------------------------------------------------------------|-----------:|
 * | velocity          | client rate above {@link PACE}.client/min, or network (/24, /64) above {@link PACE}.network/min: one per doubling of the larger excess | ceil(log2(rate/pace)) |
 * | site_velocity     | site rate above {@link PACE}.site/min: one per doubling           | ceil(log2(rate/pace)), at most 2 |
 * | failures          | failed proofs / wrong answers from the client in 10 min            | 1 per 2, at most 3 |
 * | abandoned         | puzzles issued to the client in 10 min and never redeemed, above 3 | 1 per 4, at most 2 |
 * | headers           | User-Agent missing or naming a tool; Accept-Language missing; Referer from another origin | 1 each, at most 2 |
 * | webdriver         | telemetry says navigator.webdriver is true (only ever raises cost) | 1 |
 *
 * The total of extra bits is capped at {@link MAX_EXTRA_BITS}.
 */

/** A person's pace, requests per minute: above it, work doubles per doubling of the rate. */
export const PACE = { client: 6, network: 12, site: 600 } as const;
/** Ceiling on the extra bits evidence can add (2^10 = 1024 times the level's work). */
export const MAX_EXTRA_BITS = 10;

const MINUTE = 60_000;
const TEN_MINUTES = 600_000;

/** Per-site security level: the work every token costs before any evidence is counted. */
export type SecurityLevel = 'low' | 'default' | 'high';
export const SECURITY_LEVELS: Record<SecurityLevel, WorkSize> = {
  low: { count: 16, bits: 12 },
  default: { count: 32, bits: 13 },
  high: { count: 32, bits: 15 },
};
/** The no-image path costs this many more bits than the image path's work (8×). */
export const NO_IMAGE_EXTRA_BITS = 3;

/** What the server saw about one request. */
export interface Evidence {
  clientRate: number;
  networkRate: number;
  siteRate: number;
  failures: number;
  abandoned: number;
  uaMissing: boolean;
  uaAutomation: boolean;
  uaHeadless: boolean;
  acceptLanguageMissing: boolean;
  refererMismatch: boolean;
}

export interface ObservedRequest {
  ip: string;
  userAgent?: string;
  acceptLanguage?: string;
  origin?: string;
  referer?: string;
}

/** Telemetry as parsed at the door; read only to raise cost or lower score. */
export interface Telemetry {
  webdriver?: boolean;
  timeOnPageMs?: number;
  interactions?: number;
}

const automationUa =
  /phantomjs|puppeteer|playwright|selenium|webdriver|python-requests|python-urllib|aiohttp|httpx|curl\/|wget|go-http-client|node-fetch|undici|axios|okhttp|java\/|libwww|scrapy|\bbot\b|bot\/|crawler|spider/i;
const headlessUa = /headless/i;

const keys = (req: ObservedRequest, site: string) => {
  const client = clientKey(req.ip);
  return {
    client: `ev:c:${client}`,
    network: `ev:n:${networkKey(req.ip)}`,
    site: `ev:s:${site}`,
    failures: `ev:f:${client}`,
    issued: `ev:i:${client}`,
    redeemed: `ev:r:${client}`,
  };
};

/**
 * Counts this request (per client, per network, per site) and reads the rest of the evidence.
 * Call once per challenge issued.
 */
export async function observe(stores: Stores, site: string, req: ObservedRequest): Promise<Evidence> {
  const k = keys(req, site);
  // One store call (one Redis round trip) for all six counters.
  const [clientRate, networkRate, siteRate, issued, failures, redeemed] = await stores.counters.tally(
    [
      { key: k.client, windowMs: MINUTE },
      { key: k.network, windowMs: MINUTE },
      { key: k.site, windowMs: MINUTE },
      { key: k.issued, windowMs: TEN_MINUTES },
    ],
    [k.failures, k.redeemed],
  );
  const ua = req.userAgent?.trim() ?? '';
  return {
    clientRate,
    networkRate,
    siteRate,
    failures,
    abandoned: Math.max(0, issued - 1 - redeemed),
    uaMissing: !ua,
    uaAutomation: !!ua && automationUa.test(ua),
    uaHeadless: headlessUa.test(ua),
    acceptLanguageMissing: !req.acceptLanguage?.trim(),
    refererMismatch: !!req.origin && !!req.referer && refererOrigin(req.referer) !== req.origin.trim().toLowerCase(),
  };
}

/** Records a failed proof or wrong answer of the client (raises its next work). */
export async function recordFailure(stores: Stores, site: string, req: ObservedRequest): Promise<void> {
  await stores.counters.hit(keys(req, site).failures, TEN_MINUTES);
}

/** Records a redeemed puzzle (so it does not count as abandoned). */
export async function recordRedeemed(stores: Stores, site: string, req: ObservedRequest): Promise<void> {
  await stores.counters.hit(keys(req, site).redeemed, TEN_MINUTES);
}

/** Extra bits for a rate above a pace: one per doubling. */
function doublings(rate: number, pace: number): number {
  return rate > pace ? Math.ceil(Math.log2(rate / pace)) : 0;
}

/** The reasons (and bits) the evidence adds to the base work; see the table above. */
export function extraBits(ev: Evidence, telemetry?: Telemetry): { bits: number; reasons: string[] } {
  const reasons: string[] = [];
  let bits = 0;
  const add = (reason: string, n: number) => {
    if (n <= 0) return;
    bits += n;
    reasons.push(`${reason}+${n}`);
  };
  add('velocity', Math.max(doublings(ev.clientRate, PACE.client), doublings(ev.networkRate, PACE.network)));
  add('site_velocity', Math.min(2, doublings(ev.siteRate, PACE.site)));
  add('failures', Math.min(3, Math.floor(ev.failures / 2)));
  add('abandoned', Math.min(2, Math.floor(Math.max(0, ev.abandoned - 3) / 4)));
  add(
    'headers',
    Math.min(
      2,
      Number(ev.uaMissing || ev.uaAutomation) + Number(ev.acceptLanguageMissing) + Number(ev.refererMismatch),
    ),
  );
  add('webdriver', telemetry?.webdriver === true ? 1 : 0);
  return { bits: Math.min(MAX_EXTRA_BITS, bits), reasons };
}

/**
 * The work for a request: the level's size (raised to the site's explicit minimum of
 * `2^minWorkBits` expected hashes, if set) plus the evidence's extra bits.
 */
export function workSize(
  level: SecurityLevel,
  minWorkBits: number | null,
  ev: Evidence,
  telemetry?: Telemetry,
): WorkSize {
  const base = { ...SECURITY_LEVELS[level] };
  if (minWorkBits !== null) {
    while (base.count * 2 ** base.bits < 2 ** minWorkBits) base.bits++;
  }
  return { count: base.count, bits: base.bits + extraBits(ev, telemetry).bits };
}

/** Compact form of the evidence signed into a work ticket (read back by the score). */
export function packEvidence(ev: Evidence): number[] {
  const flags =
    Number(ev.uaMissing) |
    (Number(ev.uaAutomation) << 1) |
    (Number(ev.uaHeadless) << 2) |
    (Number(ev.acceptLanguageMissing) << 3) |
    (Number(ev.refererMismatch) << 4);
  return [ev.clientRate, ev.networkRate, ev.siteRate, ev.failures, ev.abandoned, flags];
}

export function unpackEvidence(packed: readonly number[] | undefined): Evidence {
  const [clientRate = 0, networkRate = 0, siteRate = 0, failures = 0, abandoned = 0, flags = 0] = packed ?? [];
  return {
    clientRate,
    networkRate,
    siteRate,
    failures,
    abandoned,
    uaMissing: (flags & 1) !== 0,
    uaAutomation: (flags & 2) !== 0,
    uaHeadless: (flags & 4) !== 0,
    acceptLanguageMissing: (flags & 8) !== 0,
    refererMismatch: (flags & 16) !== 0,
  };
}

/** Lower-cased `scheme://host[:port]` of a Referer, or null when it is not an absolute URL. */
function refererOrigin(referer: string): string | null {
  try {
    const origin = new URL(referer).origin;
    return origin === 'null' ? null : origin.toLowerCase();
  } catch {
    return null;
  }
}
