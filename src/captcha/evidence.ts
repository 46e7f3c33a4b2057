import { createHash } from 'node:crypto';
import type { Stores } from '../stores/index.ts';
import type { CounterHit } from '../stores/counter-store.ts';
import { clientKey, networkKey, wideNetworkKey } from '../net/client-key.ts';
import { ATTEMPT_IN_HASHES_LOG2, type WorkSize } from './work.ts';
import type { PageSignals } from './page-signals.ts';
import { cappedBaseline, doublings, SITE_SURGE_FLOOR, surgeBits } from './surge.ts';

/**
 * Server-observed evidence about a challenge request, and what it costs.
 *
 * The server counts what it sees (requests per client, per network and per wider network,
 * per site in the last minute, in sliding windows; the site's own rate over the last day; which
 * wide networks the site saw yesterday, and the rate of challenges from the others; failed
 * proofs and wrong answers; puzzles issued but never redeemed) and reads the request's
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
 * | site_surge        | the site's rate this minute above twice its baseline (and above {@link PACE}.siteFloor/min): one per doubling. A request from a seen network counts only the seen networks' rate and baseline, so a surge from new networks leaves the usual visitors at the calm price | ceil(log2(rate/threshold)) |
 * | new_networks      | a request from a network new to the site (IPv4 /16, IPv6 /48 from which the site had no challenge on the previous UTC day): the rate of new-network challenges this minute above twice the site's baseline of them (and above {@link PACE}.siteFloor/min), one per doubling, beyond what site_surge adds | ceil(log2(rate/threshold)) - site_surge |
 * | failures          | failed proofs / wrong answers from the client in 10 min            | 1 per 2, at most 3 |
 * | abandoned         | puzzles issued to the client in 10 min and never redeemed, above 3 | 1 per 4, at most 2 |
 * | headers           | User-Agent missing or naming a tool; Accept-Language missing; Referer from another origin | 1 each, at most 2 |
 * | webdriver         | telemetry says navigator.webdriver is true (only ever raises cost) | 1 |
 * | browser_rate      | challenges this hour from one browser (its page's report) on one network (IPv4 /24, IPv6 /64) above {@link PACE}.browserHour | ceil(log2(count/pace)) |
 * | clearances        | gateway clearances the site gave the network (IPv4 /24, IPv6 /64) in the hour, above {@link CLEARANCE_PACE}: a clearance spent by its pace (src/gateway/pace.ts) costs more each time | ceil(log2(count/pace)) |
 *
 * The total of extra bits is capped at {@link MAX_EXTRA_BITS}.
 *
 * Baselines (surge.ts `cappedBaseline`) are per minute over the complete hours of the last day
 * (the hour under way never counts), and each hour counts for at most twice the level of the
 * hours before it (or of {@link PACE}.siteFloor/min, whichever is higher): a surge raises its
 * own baseline by at most 2x an hour and, on a site with a day of history, by about 1/24 of
 * that, so an attack does not become the norm within the hour, as a one-hour average would.
 */

/**
 * A person's pace, requests per minute: above it, work doubles per doubling of the rate.
 * `siteFloor`: a site's minute is a surge only above this many challenges, however quiet its
 * last day was (one visitor's retries are no surge). `browserHour`: challenges an hour one
 * browser (by its page's report) may ask of one site from one network at the calm price.
 */
export const PACE = { client: 6, network: 12, wide: 48, siteFloor: SITE_SURGE_FLOOR, browserHour: 30 } as const;
/** Gateway clearances a network may earn on one site in an hour at the calm price. */
export const CLEARANCE_PACE = 2;
/** Ceiling on the extra bits evidence can add (2^10 = 1024 times the level's work). */
export const MAX_EXTRA_BITS = 10;

const MINUTE = 60_000;
const TEN_MINUTES = 600_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** Complete hours a baseline reads. */
const BASELINE_HOURS = 24;
/** An hour's counter lives past the last baseline that reads it. */
const HOUR_COUNTER_MS = (BASELINE_HOURS + 2) * HOUR;
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
  /**
   * The site's usual challenges per minute: over the complete hours of the last day, each hour
   * capped at twice the level before it ({@link cappedBaseline}).
   */
  siteBaseline: number;
  failures: number;
  abandoned: number;
  uaMissing: boolean;
  uaAutomation: boolean;
  uaHeadless: boolean;
  acceptLanguageMissing: boolean;
  refererMismatch: boolean;
  /** The request's wide network (IPv4 /16, IPv6 /48) had no challenge of the site the day before. Absent: seen. */
  newNetwork?: boolean;
  /** Challenges a minute (sliding) to the site from networks new to it. Absent: 0. */
  newNetworkRate?: number;
  /** The site's usual challenges per minute from new networks, as {@link siteBaseline} is computed. Absent: 0. */
  newNetworkBaseline?: number;
  /** Gateway clearances the site gave the request's network in the hour. Absent: 0. */
  clearances?: number;
  /** The client's address is in a hosting or cloud network (src/net/hosting.ts). Absent: not. */
  hosting?: boolean;
  /** Challenges this hour from the same browser (by its page's report) on the same network (IPv4 /24, IPv6 /64). Absent: 0. */
  browserRate?: number;
}

export interface ObservedRequest {
  ip: string;
  userAgent?: string;
  acceptLanguage?: string;
  origin?: string;
  referer?: string;
  /** Whether the address is in a hosting network (the caller classified it). */
  hosting?: boolean;
  /** What tells one browser from another in its page's report ({@link browserKey}); absent without one. */
  browser?: string;
}

/**
 * One browser as its page reports it: the User-Agent, the client hints, the language, the
 * WebGL renderer, the screen and its density, hashed. Many browsers share it (one model of
 * phone); on one network and one site in one hour, few people do. A client without a browser
 * makes up a new one each time; a browser harvesting tokens keeps its own.
 */
export function browserKey(t: Telemetry | undefined): string | undefined {
  const p = t?.page;
  if (!p) return undefined;
  const screen = t.window ? t.window.screen.join('x') : '';
  return createHash('sha256')
    .update([p.ua, p.brands, p.platform, p.language, p.webgl, screen, t.dpr ?? ''].join('\n'))
    .digest('base64url')
    .slice(0, 16);
}

/** Telemetry as parsed at the door; read only to raise cost or lower score. */
export interface Telemetry {
  webdriver?: boolean;
  timeOnPageMs?: number;
  interactions?: number;
  /** The window's outer and inner size and the screen's, in CSS pixels (risk.ts `headless_window`). */
  window?: {
    outer: readonly [number, number];
    inner: readonly [number, number];
    screen: readonly [number, number];
  };
  /** devicePixelRatio in hundredths. */
  dpr?: number;
  /** What the page showed about the browser (page-signals.ts); absent: scored as the worst case. */
  page?: PageSignals;
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
    siteHours: `ev:sd:${site}`,
    newMinute: `ev:sn:${site}`,
    newHours: `ev:snd:${site}`,
    seen: `ev:seen:${site}:${wideNetworkKey(req.ip)}`,
    failures: `ev:f:${client}`,
    issued: `ev:i:${client}`,
    redeemed: `ev:r:${client}`,
    clearances: `ev:gc:${site}:${networkKey(req.ip)}`,
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
  const hour = Math.floor(now / HOUR);
  const day = Math.floor(now / DAY);
  // The wide network's mark for the day before: absent, the network is new to the site.
  const seenBefore = `${k.seen}:${day - 1}`;
  const rates = [
    sliding(k.client, MINUTE, now),
    sliding(k.network, MINUTE, now),
    sliding(k.wide, MINUTE, now),
    sliding(k.site, MINUTE, now),
    sliding(k.newMinute, MINUTE, now),
  ];
  const pastHours = Array.from({ length: BASELINE_HOURS }, (_, i) => hour - BASELINE_HOURS + i);
  const hits: CounterHit[] = [
    ...rates.slice(0, 4).map((r) => r.hit),
    // The new networks' minute and hour count new networks only.
    { ...rates[4].hit, onlyIfZero: seenBefore },
    { key: k.issued, windowMs: TEN_MINUTES },
    { key: `${k.siteHours}:${hour}`, windowMs: HOUR_COUNTER_MS },
    { key: `${k.newHours}:${hour}`, windowMs: HOUR_COUNTER_MS, onlyIfZero: seenBefore },
    { key: `${k.seen}:${day}`, windowMs: 2 * DAY },
  ];
  // The browser's hour on this site and network: counted last, so the reads' places stay put.
  if (req.browser) hits.push({ key: `ev:b:${site}:${networkKey(req.ip)}:${req.browser}`, windowMs: HOUR });
  const reads = [
    ...rates.map((r) => r.previous),
    k.failures,
    k.redeemed,
    seenBefore,
    ...pastHours.map((h) => `${k.siteHours}:${h}`),
    ...pastHours.map((h) => `${k.newHours}:${h}`),
    k.clearances,
  ];
  // One store call (one Redis round trip) for every counter.
  const counts = await stores.counters.tally(hits, reads);
  const n = rates.length;
  const at = hits.length;
  const [clientRate, networkRate, wideRate, siteRate, newNetworkRate] = rates.map((r, i) =>
    r.rate(counts[i], counts[at + i]),
  );
  const [issued, failures, redeemed, seen] = [counts[n], counts[at + n], counts[at + n + 1], counts[at + n + 2]];
  const hourly = at + n + 3;
  const siteHours = counts.slice(hourly, hourly + BASELINE_HOURS);
  const newHours = counts.slice(hourly + BASELINE_HOURS, hourly + 2 * BASELINE_HOURS);
  const clearances = counts[hourly + 2 * BASELINE_HOURS];
  const ua = req.userAgent?.trim() ?? '';
  return {
    clientRate,
    networkRate,
    wideRate,
    siteRate,
    siteBaseline: cappedBaseline(siteHours),
    failures,
    abandoned: Math.max(0, issued - 1 - redeemed),
    uaMissing: !ua,
    uaAutomation: !!ua && automationUa.test(ua),
    uaHeadless: headlessUa.test(ua),
    acceptLanguageMissing: !req.acceptLanguage?.trim(),
    refererMismatch: !!req.origin && !!req.referer && refererOrigin(req.referer) !== req.origin.trim().toLowerCase(),
    newNetwork: seen === 0,
    newNetworkRate,
    newNetworkBaseline: cappedBaseline(newHours),
    clearances,
    hosting: req.hosting === true,
    browserRate: req.browser ? counts[at - 1] : 0,
  };
}

/** Records a gateway clearance given to the client's network (raises the network's next checks on the site). */
export async function recordClearance(stores: Stores, site: string, ip: string): Promise<void> {
  await stores.counters.hit(keys({ ip }, site).clearances, HOUR);
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
  const surge = surgeBits(ev);
  add('site_surge', surge.site);
  add('new_networks', surge.newNetworks);
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
  add('clearances', doublings(ev.clearances ?? 0, CLEARANCE_PACE));
  add('browser_rate', doublings(ev.browserRate ?? 0, PACE.browserHour));
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

/** Compact form of the evidence signed into a work ticket (read back by the score). */
export function packEvidence(ev: Evidence): number[] {
  const flags =
    Number(ev.uaMissing) |
    (Number(ev.uaAutomation) << 1) |
    (Number(ev.uaHeadless) << 2) |
    (Number(ev.acceptLanguageMissing) << 3) |
    (Number(ev.refererMismatch) << 4) |
    (Number(ev.hosting === true) << 5);
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
    Number(ev.newNetwork === true),
    round(ev.newNetworkRate ?? 0),
    round(ev.newNetworkBaseline ?? 0),
    ev.browserRate ?? 0,
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
    newNetwork = 0,
    newNetworkRate = 0,
    newNetworkBaseline = 0,
    browserRate = 0,
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
    newNetwork: newNetwork === 1,
    newNetworkRate,
    newNetworkBaseline,
    hosting: (flags & 32) !== 0,
    browserRate,
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
