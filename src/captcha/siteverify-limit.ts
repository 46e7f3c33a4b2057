import { AppError } from '../errors.ts';
import { siteBySecret } from './sites.ts';
import type { SiteverifyDeps } from './siteverify.ts';
import { testSecretKind } from './test-keys.ts';

/** The spec's siteverify limit: calls a minute per client address. */
export const SITEVERIFY_PER_MINUTE = 120;
/** The most an operator may allow a site (per client address and minute). */
export const MAX_SITEVERIFY_PER_MINUTE = 1_000_000;

const WINDOW_MS = 60_000;

/**
 * Counts one siteverify call from `ip` against the limit of the site its secret belongs to
 * (the site's `siteverifyPerMinute`, else the spec's 120), shared by every siteverify path.
 * Unknown and test secrets count per address alone, at 120. Windows are calendar minutes,
 * so Retry-After is exact. Throws RATE_LIMITED (429) past the limit and UNAVAILABLE when
 * the store cannot count: siteverify never answers success without its limit.
 */
export async function countSiteverify(deps: SiteverifyDeps, secret: string | undefined, ip: string): Promise<void> {
  const s = secret?.trim();
  const site = s && !testSecretKind(s) ? await siteBySecret(deps.em, s, deps.now()) : null;
  const max = site?.siteverifyPerMinute ?? SITEVERIFY_PER_MINUTE;
  const now = deps.now();
  const window = Math.floor(now / WINDOW_MS);
  let hits: number;
  try {
    hits = await deps.stores.counters.hit(`sv:${site?.sitekey ?? '-'}:${ip}:${window}`, WINDOW_MS);
  } catch (err) {
    throw new AppError('UNAVAILABLE', 'The rate-limit store is unavailable; try again shortly.', { retryAfter: 5, cause: err });
  }
  if (hits > max) {
    const after = Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000));
    throw new AppError('RATE_LIMITED', `Too many siteverify calls; retry in ${after} s.`, { retryAfter: after });
  }
}
