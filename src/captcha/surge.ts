/**
 * A site's surges, priced against its own usual rate (evidence.ts's `site_surge` and
 * `new_networks`): the baselines, which an attack cannot teach within the hour, and the bits a
 * request pays for a surge. Pure arithmetic over counts the evidence read.
 */

/** A site's minute is a surge only above this many challenges, however quiet its day was (one visitor's retries are no surge). */
export const SITE_SURGE_FLOOR = 15;

/** What the surge rules read of the evidence (evidence.ts `Evidence` has these fields). */
export interface SurgeEvidence {
  siteRate: number;
  siteBaseline: number;
  newNetwork?: boolean;
  newNetworkRate?: number;
  newNetworkBaseline?: number;
}

/** Extra bits for a rate above a pace: one per doubling. */
export function doublings(rate: number, pace: number): number {
  return rate > pace ? Math.ceil(Math.log2(rate / pace)) : 0;
}

/** Above this many challenges a minute the site is surging: twice its baseline, at least {@link SITE_SURGE_FLOOR}. */
export function siteSurgeThreshold(baselinePerMinute: number): number {
  return Math.max(SITE_SURGE_FLOOR, 2 * baselinePerMinute);
}

/**
 * A site's usual challenges per minute from its hourly counts (oldest first, the hour under
 * way left out): the mean of the hours since the first with any challenge, each hour counted
 * for at most twice the mean of the hours before it, or twice {@link SITE_SURGE_FLOOR} a
 * minute when that is higher. So the baseline grows at most 2x an hour; a new site's first
 * hours ramp up from the floor (steady traffic of 100 a minute is calm again within about
 * three hours, as the threshold is twice the baseline); and on a site with a day of history a
 * surge raises it by at most twice the level, spread over 24 hours, per hour of surge.
 */
export function cappedBaseline(hours: readonly number[]): number {
  const floor = SITE_SURGE_FLOOR * 60;
  let sum = 0;
  let counted = 0;
  for (const count of hours) {
    if (counted === 0 && count === 0) continue;
    const level = counted === 0 ? 0 : sum / counted;
    sum += Math.min(count, 2 * Math.max(level, floor));
    counted++;
  }
  return counted === 0 ? 0 : sum / counted / 60;
}

/**
 * The surge's bits for a request. From a seen network: the seen networks' rate against their
 * baseline (the site's less the new networks'), so a surge from new networks is not the usual
 * visitors' to pay. From a new network: the site's whole rate against its baseline
 * (`site`), and the new networks' rate against theirs where that asks more (`newNetworks`,
 * the bits beyond `site`). Evidence without the new-network fields is priced as before them.
 */
export function surgeBits(ev: SurgeEvidence): { site: number; newNetworks: number } {
  const newRate = ev.newNetworkRate ?? 0;
  const newBaseline = ev.newNetworkBaseline ?? 0;
  if (!ev.newNetwork) {
    const seenRate = Math.max(0, ev.siteRate - newRate);
    const seenBaseline = Math.max(0, ev.siteBaseline - newBaseline);
    return { site: doublings(seenRate, siteSurgeThreshold(seenBaseline)), newNetworks: 0 };
  }
  const site = doublings(ev.siteRate, siteSurgeThreshold(ev.siteBaseline));
  return { site, newNetworks: Math.max(0, doublings(newRate, siteSurgeThreshold(newBaseline)) - site) };
}
