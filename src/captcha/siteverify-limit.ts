import type { SiteBySecret } from './sites.ts';
import type { CounterLimit } from '../stores/spent-token-store.ts';

/** The spec's siteverify limit: calls a minute per client address (per route). */
export const SITEVERIFY_PER_MINUTE = 120;
/** The most an operator may allow a site (per client address, route and minute). */
export const MAX_SITEVERIFY_PER_MINUTE = 1_000_000;

const WINDOW_MS = 60_000;

/**
 * The limit one call to the siteverify route `route` from `ip` counts against: that of `site`,
 * the site the call's secret belongs to, its
 * `siteverifyPerMinute`, else the spec's 120. Unknown and test secrets (`site` null) count
 * per route and address alone, at 120. A window starts at its first call and lasts a minute.
 */
export function siteverifyLimit(route: string, site: SiteBySecret | null, ip: string): CounterLimit {
  return {
    key: `sv:${route}:${site?.sitekey ?? '-'}:${ip}`,
    windowMs: WINDOW_MS,
    max: site?.siteverifyPerMinute ?? SITEVERIFY_PER_MINUTE,
  };
}
