import { createHash } from 'node:crypto';
import type { GatewaySettings } from '../entities/site.entity.ts';
import { networkKey } from '../net/client-key.ts';
import type { Stores } from '../stores/index.ts';
import type { CounterHit } from '../stores/counter-store.ts';

/**
 * A clearance is a person's pace, not a pass: the pages opened on one clearance are counted
 * in the shared store (so every instance counts the same), in a burst of 10 seconds, a minute
 * and a day. Past any of them the clearance is spent: the next page is challenged again, and
 * the new check costs more (the network's clearances of the hour raise its work, evidence.ts
 * `clearances`). The same for an allow rule that rests on what the client says alone (a
 * User-Agent or header pattern, the link-preview and AI-crawler presets) with no network or
 * DNS condition: pages per network, after which that rule stops deciding and the request is
 * treated as if it had not matched.
 *
 * A page is any request whose path does not end in a static file's extension, whatever its
 * headers claim: `Sec-Fetch-Dest` and `Accept` are the client's to write, so a scraper that
 * dressed its page requests as images would otherwise go uncounted. Images, styles, scripts
 * and fonts (by extension) are not counted: they are not pages.
 */

/** The defaults: a person reading, or opening a few tabs at once, never meets them. */
export const DEFAULT_PACE = { burst: 20, per_minute: 60, per_day: 1000 } as const;
export const DEFAULT_CLAIM_BUDGET = { per_minute: 30, per_day: 300 } as const;

const BURST_MS = 10_000;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** Extensions of files a page loads, never pages themselves. */
const ASSET_EXTENSIONS = new Set([
  'css',
  'js',
  'mjs',
  'map',
  'png',
  'jpg',
  'jpeg',
  'gif',
  'webp',
  'avif',
  'svg',
  'ico',
  'bmp',
  'woff',
  'woff2',
  'ttf',
  'otf',
  'eot',
  'mp4',
  'webm',
  'mp3',
  'ogg',
  'wav',
  'm4a',
  'vtt',
  'wasm',
]);

/** Whether a path counts as a page: every reading (target.ts) whose last segment is not a static file. */
export function isPage(readings: readonly string[]): boolean {
  return readings.some((path) => {
    const last = path.slice(path.lastIndexOf('/') + 1);
    const dot = last.lastIndexOf('.');
    return dot < 0 || !ASSET_EXTENSIONS.has(last.slice(dot + 1).toLowerCase());
  });
}

/** The store's name for one clearance: a digest of its cookie value (the value itself is a credential). */
export function clearanceId(cookie: string): string {
  return createHash('sha256').update(cookie).digest('base64url').slice(0, 22);
}

/** One clearance's pace counters in the store, named once when the clearance is first verified. */
export interface PaceKeys {
  /** The burst, minute and day windows, in that order. */
  windows: readonly CounterHit[];
  /** Set once the clearance is past its pace, until it expires. */
  spent: string;
}

/** The pace counters of the clearance whose {@link clearanceId} is `id`. */
export function paceKeys(id: string): PaceKeys {
  return {
    windows: [
      { key: `gw:pb:${id}`, windowMs: BURST_MS },
      { key: `gw:pm:${id}`, windowMs: MINUTE_MS },
      { key: `gw:pd:${id}`, windowMs: DAY_MS },
    ],
    spent: `gw:spent:${id}`,
  };
}

/** Whether the clearance was spent by its pace (one store read). */
export async function isSpent(stores: Stores, keys: PaceKeys): Promise<boolean> {
  return (await stores.counters.count(keys.spent)) > 0;
}

/**
 * Counts one page on a clearance and says whether it may open it: false when this page is
 * past the site's pace (the clearance is then spent until `expiresMs`) or the clearance was
 * spent already. One store call.
 */
export async function countPage(
  stores: Stores,
  keys: PaceKeys,
  settings: GatewaySettings,
  expiresMs: number,
  now: number,
): Promise<boolean> {
  const pace = settings.pace ?? DEFAULT_PACE;
  const [burst, minute, day, spent] = await stores.counters.tally(keys.windows, [keys.spent]);
  if (spent > 0) return false;
  if (burst <= pace.burst && minute <= pace.per_minute && day <= pace.per_day) return true;
  await stores.counters.hit(keys.spent, Math.max(1000, expiresMs - now));
  return false;
}

/**
 * Counts one page that an allow-by-claim rule would let through, per site, rule and the
 * client's network; false past the site's claim budget (the rule then does not decide).
 */
export async function countClaim(
  stores: Stores,
  sitekey: string,
  rule: string,
  ip: string,
  settings: GatewaySettings,
): Promise<boolean> {
  const budget = settings.claim_budget ?? DEFAULT_CLAIM_BUDGET;
  const key = `gw:cl:${sitekey}:${createHash('sha256').update(rule).digest('base64url').slice(0, 11)}:${networkKey(ip)}`;
  const [minute, day] = await stores.counters.tally(
    [
      { key: `${key}:m`, windowMs: MINUTE_MS },
      { key: `${key}:d`, windowMs: DAY_MS },
    ],
    [],
  );
  return minute <= budget.per_minute && day <= budget.per_day;
}
