import type { Stores } from '../stores/index.ts';
import { clientKey, networkKey, wideNetworkKey } from '../net/client-key.ts';
import { ATTEMPT_IN_HASHES_LOG2, type WorkSize } from './work.ts';

/**
 * Server-observed evidence about a challenge request, and what it costs.
 *
 * The server counts what it sees (requests per client, per network and per wider network,
 * per site in the last minute, in sliding windows; the site's own rate over the last hour;
 * failed proofs and wrong answers; puzzles issued but never redeemed) and reads the request's
 * headers. That alone sizes the proof of work. Client telemetry is read only to
 * make things worse for the client: `webdriver: true` adds work and lowers the score, a
 * missing interaction lowers the score; nothing the client says can lower its work or raise
 * its score.
 *
 * Work size (see {@link workSize}): the site's level gives `count` sub-puzzles of `bits` bits.
 * Extra bits (each doubles the work):
 *
 * | reason            | condition                                                         | extra bits |
 * |-------------------|-------------------------------------------------------------------|-----------:|
 * | velocity          | client (address, IPv6 /64) above {@link PACE}.client/min, network (IPv4 /24) above {@link PACE}.network/min, or wide network (IPv4 /16, IPv6 /48) above {@link PACE}.wide/min: one per doubling of the largest excess | ceil(log2(rate/pace)) |
 * | site_surge        | the site's rate this minute above twice its own average minute of the last hour (and above {@link PACE}.siteFloor/min): one per doubling, for every client of the site | ceil(log2(rate/threshold)) |
 * | failures          | failed proofs / wrong answers from the client in 10 min            | 1 per 2, at most 3 |
 * | abandoned         | puzzles issued to the client in 10 min and never redeemed, above 3 | 1 per 4, at most 2 |
 * | headers           | User-Agent missing or naming a tool; Accept-Language missing; Referer from another origin | 1 each, at most 2 |
 * | webdriver         | telemetry says navigator.webdriver is true (only ever raises cost) | 1 |
 *
 * The total of extra bits is capped at {@link MAX_EXTRA_BITS}.
 */

/**
 * A person's pace, requests per minute: above it, work doubles per doubling of the rate.
 * `siteFloor`: a site's minute is a surge only above this many challenges, however quiet its
 * last hour was (one visitor's retries are no surge).
 */
export const PACE = { client: 6, network: 12, wide: 48, siteFloor: 15 } as const;
/** Ceiling on the extra bits evidence can add (2^10 = 1024 times the level's work). */
export const MAX_EXTRA_BITS = 10;

const MINUTE = 60_000;
const TEN_MINUTES = 600_000;
const HOUR = 3_600_000;

/**
 * Per-site security level: the work every token costs before any evidence is counted, in
 * attempts of the walk (pow/walk.ts; about 0.1 ms of a native core each, and about the same
 * in the widget's worker). `default` asks 4,096 attempts: about 0.4 CPU-seconds of a native
 * bot, and a quarter to half a second for a person on two cores (figures in bench/README.md,
 * from bench/adversary.ts). Eight puzzles keep the check at one run of walk.wat's eight lanes.
 */
export type SecurityLevel = 'low' | 'default' | 'high';
export const SECURITY_LEVELS: Record<SecurityLevel, WorkSize> = {
  low: { count: 8, bits: 7 },
  default: { count: 8, bits: 9 },
  high: { count: 8, bits: 11 },
};
/** The no-image path costs this many more bits than the image path's work (4×). */
export const NO_IMAGE_EXTRA_BITS = 2;

/** What the server saw about one request. */
export interface Evidence {
  /** Requests per minute (sliding window) of the client, its /24 (IPv4), its /16 or /48, and the site. */
  clientRate: number;
  networkRate: number;
  wideRate: number;
  siteRate: number;
  /** The site's average challenges per minute over the last hour (sliding), this minute included. */
  siteBaseline: number;
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
    wide: `ev:w:${wideNetworkKey(req.ip)}`,
    site: `ev:s:${site}`,
    siteHour: `ev:sh:${site}`,
    failures: `ev:f:${client}`,
    issued: `ev:i:${client}`,
    redeemed: `ev:r:${client}`,
  };
};

/**
 * Counts this request (per client, per network, per site) and reads the rest of the evidence.
 * Call once per challenge issued.
 */
export async function observe(
  stores: Stores,
  site: string,
  req: ObservedRequest,
  now: number = Date.now(),
): Promise<Evidence> {
  const k = keys(req, site);
  const rates = [
    sliding(k.client, MINUTE, now),
    sliding(k.network, MINUTE, now),
    sliding(k.wide, MINUTE, now),
    sliding(k.site, MINUTE, now),
    sliding(k.siteHour, HOUR, now),
  ];
  // One store call (one Redis round trip) for every counter.
  const counts = await stores.counters.tally(
    [...rates.map((r) => r.hit), { key: k.issued, windowMs: TEN_MINUTES }],
    [...rates.map((r) => r.previous), k.failures, k.redeemed],
  );
  const n = rates.length;
  const [clientRate, networkRate, wideRate, siteRate, siteHour] = rates.map((r, i) =>
    r.rate(counts[i], counts[n + 1 + i]),
  );
  const [issued, failures, redeemed] = [counts[n], counts[2 * n + 1], counts[2 * n + 2]];
  const ua = req.userAgent?.trim() ?? '';
  return {
    clientRate,
    networkRate,
    wideRate,
    siteRate,
    siteBaseline: siteHour / 60,
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

/**
 * A sliding window over two fixed ones (the usual approximation): the count of the current
 * window plus the previous window's count weighted by the share of it still inside the last
 * `windowMs`. Spreading requests over a window's edge then no longer resets the price.
 */
function sliding(key: string, windowMs: number, now: number) {
  const index = Math.floor(now / windowMs);
  const elapsed = (now - index * windowMs) / windowMs;
  return {
    hit: { key: `${key}:${index}`, windowMs: 2 * windowMs },
    previous: `${key}:${index - 1}`,
    rate: (current: number, previous: number) => current + previous * (1 - elapsed),
  };
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
  add(
    'velocity',
    Math.max(
      doublings(ev.clientRate, PACE.client),
      doublings(ev.networkRate, PACE.network),
      doublings(ev.wideRate, PACE.wide),
    ),
  );
  add('site_surge', doublings(ev.siteRate, siteSurgeThreshold(ev.siteBaseline)));
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
 * `2^minWorkBits` expected SHA-256 hashes' worth, if set: an attempt counts as
 * 2^{@link ATTEMPT_IN_HASHES_LOG2} hashes) plus the evidence's extra bits.
 */
export function workSize(
  level: SecurityLevel,
  minWorkBits: number | null,
  ev: Evidence,
  telemetry?: Telemetry,
): WorkSize {
  const base = { ...SECURITY_LEVELS[level] };
  if (minWorkBits !== null) {
    while (base.count * 2 ** base.bits < 2 ** (minWorkBits - ATTEMPT_IN_HASHES_LOG2)) base.bits++;
  }
  return { count: base.count, bits: base.bits + extraBits(ev, telemetry).bits };
}

/** Above this many challenges a minute the site is surging: twice its recent average, at least {@link PACE}.siteFloor. */
export function siteSurgeThreshold(baselinePerMinute: number): number {
  return Math.max(PACE.siteFloor, 2 * baselinePerMinute);
}

/** Compact form of the evidence signed into a work ticket (read back by the score). */
export function packEvidence(ev: Evidence): number[] {
  const flags =
    Number(ev.uaMissing) |
    (Number(ev.uaAutomation) << 1) |
    (Number(ev.uaHeadless) << 2) |
    (Number(ev.acceptLanguageMissing) << 3) |
    (Number(ev.refererMismatch) << 4);
  const round = (x: number) => Math.round(x * 10) / 10;
  return [
    round(ev.clientRate),
    round(ev.networkRate),
    round(ev.siteRate),
    ev.failures,
    ev.abandoned,
    flags,
    round(ev.wideRate),
    round(ev.siteBaseline),
  ];
}

export function unpackEvidence(packed: readonly number[] | undefined): Evidence {
  const [
    clientRate = 0,
    networkRate = 0,
    siteRate = 0,
    failures = 0,
    abandoned = 0,
    flags = 0,
    wideRate = 0,
    siteBaseline = 0,
  ] = packed ?? [];
  return {
    clientRate,
    networkRate,
    wideRate,
    siteRate,
    siteBaseline,
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
