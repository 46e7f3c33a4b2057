import { LRUCache } from 'lru-cache';
import { checkClearance, clearanceExpiry, type ClearanceBinding } from './clearance.ts';
import { clearanceId, paceKeys, type PaceKeys } from './pace.ts';

/** A clearance cookie that holds for the request: when it expires, and its counters in the pace store. */
export interface VerifiedClearance {
  expiresMs: number;
  /** The pace counters of the value (named by its {@link clearanceId}). */
  pace: PaceKeys;
}

interface Known extends VerifiedClearance, ClearanceBinding {}

/** Clearances kept verified: one a visitor, far more than the visitors one instance sees at once. */
const KEPT = 10_000;

/**
 * The clearance check of one instance, remembering the cookie values it verified: a cleared
 * visitor's next requests (each image and script of a page) compare the binding (site, client
 * address, User-Agent) with the one the MAC was verified for, in place of two hashes and an
 * HMAC each. Only a value that passed {@link checkClearance} is remembered, under the value
 * itself (a guessed value finds nothing; V8's string hashes are seeded per process, so the
 * lookup's time says nothing of stored values), and a request with another binding is checked
 * in full, as is every value after its expiry.
 */
export class VerifiedClearances {
  private readonly known = new LRUCache<string, Known>({ max: KEPT });

  constructor(private readonly tokenKey: () => Buffer) {}

  /** The clearance `value` is for this binding, unexpired at `now`, or null (see {@link checkClearance}). */
  verify(value: string | undefined, b: ClearanceBinding, now: number): VerifiedClearance | null {
    if (!value) return null;
    const known = this.known.get(value);
    if (known && known.sitekey === b.sitekey && known.ip === b.ip && known.userAgent === b.userAgent)
      return known.expiresMs > now ? known : null;
    if (!checkClearance(this.tokenKey(), value, b, now)) return null;
    const entry: Known = { ...b, expiresMs: (clearanceExpiry(value) ?? 0) * 1000, pace: paceKeys(clearanceId(value)) };
    this.known.set(value, entry);
    return entry;
  }
}
