import { hash as digestOnce, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The one scheme for prefixed secrets: API keys (`ak_<prefix>_<secret>`) and site secrets
 * (`sec_<prefix>_<secret>`). A secret is its tag, a 10-hex-digit lookup prefix (stored in
 * clear, indexed) and 32 random bytes in base64url; only SHA-256 of the whole string is
 * stored. A slow password hash is not needed: 256 bits of entropy cannot be brute-forced,
 * and a fast hash keeps per-request checks cheap.
 */
export interface SecretScheme {
  readonly tag: string;
  /** A new secret and its lookup prefix (without the tag). The secret is shown once. */
  generate(): { secret: string; prefix: string };
  /** SHA-256 of the whole secret, as stored (hex) and compared. */
  hash(secret: string): Buffer;
  /** The lookup prefix of a well-formed secret of this scheme; undefined otherwise. */
  prefixOf(secret: string): string | undefined;
  /**
   * Whether `secret` hashes to `storedHashHex`, in constant time. With no stored hash (an
   * unknown prefix) it still hashes and compares, so timing does not tell the two apart.
   */
  matches(secret: string, storedHashHex: string | null | undefined): boolean;
}

/** A hash no secret has, compared against when the prefix is unknown. */
const noHash = Buffer.alloc(32);

export function secretScheme(tag: string): SecretScheme {
  // `<tag>_<10 hex>_<43 base64url>`, read by position (no regex built from `tag`).
  const head = `${tag}_`;
  const prefixOf = (secret: string): string | undefined => {
    if (secret.length !== head.length + 10 + 1 + 43 || !secret.startsWith(head)) return undefined;
    const prefix = secret.slice(head.length, head.length + 10);
    const rest = secret.slice(head.length + 10);
    return /^[0-9a-f]{10}$/.test(prefix) && /^_[A-Za-z0-9_-]{43}$/.test(rest) ? prefix : undefined;
  };
  // crypto.hash: one call, no Hash object (a third of createHash's cost on this path).
  const hash = (secret: string) => digestOnce('sha256', secret, 'buffer');
  return {
    tag,
    generate() {
      const prefix = randomBytes(5).toString('hex');
      return { secret: `${tag}_${prefix}_${randomBytes(32).toString('base64url')}`, prefix };
    },
    hash,
    prefixOf,
    matches(secret, storedHashHex) {
      const stored = storedHashHex ? Buffer.from(storedHashHex, 'hex') : noHash;
      const same = stored.length === 32 && timingSafeEqual(stored, hash(secret));
      return same && Boolean(storedHashHex);
    },
  };
}

/** API keys: `ak_<prefix>_<secret>`. */
export const apiKeyScheme = secretScheme('ak');
/** Site secrets for siteverify: `sec_<prefix>_<secret>`. */
export const siteSecretScheme = secretScheme('sec');

/** Extracts the token from an `Authorization: Bearer <token>` header; undefined if malformed. */
export function parseBearer(header: string | undefined): string | undefined {
  if (!header) return undefined;
  return /^Bearer[ ]+(\S+)\s*$/i.exec(header)?.[1];
}

/** Whether two strings are equal, in time that depends on neither (compares SHA-256 digests). */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => digestOnce('sha256', s, 'buffer');
  return timingSafeEqual(digest(given), digest(expected)) && given.length > 0;
}
