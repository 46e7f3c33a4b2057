import { AppError } from '../errors.ts';
import type { SiteBySecret } from './sites.ts';
import type { CounterLimit } from '../stores/spent-token-store.ts';

/** The spec's siteverify limit: calls a minute per client address (per route). */
export const SITEVERIFY_PER_MINUTE = 120;
/** The most an operator may allow a site (per client address, route and minute). */
export const MAX_SITEVERIFY_PER_MINUTE = 1_000_000;

const WINDOW_MS = 60_000;

/**
 * The limit one call to the siteverify route `route` from `ip` counts against: that of `site`,
 * the site the call's secret belongs to (siteverify.ts `secretSite`), its
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

/**
 * How siteverify refuses a call it cannot count or that is past its limit: RATE_LIMITED
 * (429, Retry-After at most 60 s), and UNAVAILABLE when the store cannot count: siteverify
 * never answers without its limit.
 */
export const siteverifyRefusals = {
  onLimited: (limit: CounterLimit) =>
    new AppError('RATE_LIMITED', 'Too many siteverify calls; retry within a minute.', {
      retryAfter: WINDOW_MS / 1000,
      headers: { 'X-RateLimit-Limit': String(limit.max), 'X-RateLimit-Remaining': '0' },
    }),
  onStoreFailure: (cause: unknown) =>
    new AppError('UNAVAILABLE', 'The rate-limit store is unavailable; try again shortly.', {
      retryAfter: 5,
      cause,
    }),
};
