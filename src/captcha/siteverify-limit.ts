import { AppError } from '../errors.ts';
import type { SiteBySecret } from './sites.ts';
import type { SiteverifyDeps } from './siteverify.ts';

/** The spec's siteverify limit: calls a minute per client address (per route). */
export const SITEVERIFY_PER_MINUTE = 120;
/** The most an operator may allow a site (per client address, route and minute). */
export const MAX_SITEVERIFY_PER_MINUTE = 1_000_000;

const WINDOW_MS = 60_000;

/**
 * Counts one call to the siteverify route `route` from `ip` against the limit of `site`, the
 * site the call's secret belongs to (siteverify.ts `secretSite`): the site's
 * `siteverifyPerMinute`, else the spec's 120. Unknown and test secrets (`site` null) count
 * per route and address alone, at 120. A window starts at its first call
 * and lasts a minute. Throws RATE_LIMITED (429, Retry-After at most 60 s) past the limit and
 * UNAVAILABLE when the store cannot count: siteverify never answers without its limit.
 */
export async function countSiteverify(
  deps: Pick<SiteverifyDeps, 'stores'>,
  route: string,
  site: SiteBySecret | null,
  ip: string,
): Promise<void> {
  const max = site?.siteverifyPerMinute ?? SITEVERIFY_PER_MINUTE;
  let hits: number;
  try {
    hits = await deps.stores.counters.hit(`sv:${route}:${site?.sitekey ?? '-'}:${ip}`, WINDOW_MS);
  } catch (err) {
    throw new AppError('UNAVAILABLE', 'The rate-limit store is unavailable; try again shortly.', {
      retryAfter: 5,
      cause: err,
    });
  }
  if (hits > max) {
    throw new AppError('RATE_LIMITED', 'Too many siteverify calls; retry within a minute.', {
      retryAfter: WINDOW_MS / 1000,
      headers: { 'X-RateLimit-Limit': String(max), 'X-RateLimit-Remaining': '0' },
    });
  }
}
