import { createHash, randomBytes } from 'node:crypto';

/**
 * Proof of work for the managed flow. The browser widget implements the same search with
 * WebCrypto: find a decimal nonce string such that SHA-256 of the UTF-8 bytes of
 * `${salt}:${nonce}` starts with at least `difficulty` zero bits. Expected work is
 * 2^difficulty hashes; checking costs one.
 */

/** How long a puzzle may be answered after it is issued. */
export const POW_TTL_MS = 120_000;

/** Highest difficulty accepted (2^32 hashes is already far beyond a browser's patience). */
export const MAX_POW_DIFFICULTY = 32;

/** A puzzle as handed to the widget. */
export interface PowPuzzle {
  /** 16 random bytes, base64url. */
  salt: string;
  /** Required leading zero bits. */
  difficulty: number;
  /** Unix ms after which the answer is no longer accepted. */
  expiresAt: number;
}

const noncePattern = /^\d{1,16}$/;

/** Issues a puzzle of `difficulty` bits (integer 0..32) valid for {@link POW_TTL_MS} from `now`. */
export function createPow(difficulty: number, now: number): PowPuzzle {
  checkDifficulty(difficulty);
  return { salt: randomBytes(16).toString('base64url'), difficulty, expiresAt: now + POW_TTL_MS };
}

/** Number of leading zero bits in `buf` (8 × length for an all-zero buffer). */
export function leadingZeroBits(buf: Uint8Array): number {
  let bits = 0;
  for (const byte of buf) {
    if (byte === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(byte) - 24;
  }
  return bits;
}

/**
 * Checks a nonce. False for a nonce that is not 1..16 decimal digits, a difficulty out of
 * range, or a hash with too few leading zero bits. Expiry is the caller's check.
 */
export function verifyPow(salt: string, difficulty: number, nonce: string): boolean {
  if (typeof nonce !== 'string' || !noncePattern.test(nonce) || typeof salt !== 'string') return false;
  if (!Number.isInteger(difficulty) || difficulty < 0 || difficulty > MAX_POW_DIFFICULTY) return false;
  return leadingZeroBits(powHash(salt, nonce)) >= difficulty;
}

/** Brute-forces a nonce (counting up from 0), as the widget does. For tests and benchmarks. */
export function solvePow(salt: string, difficulty: number): string {
  checkDifficulty(difficulty);
  for (let n = 0; n < Number.MAX_SAFE_INTEGER; n++) {
    const nonce = String(n);
    if (leadingZeroBits(powHash(salt, nonce)) >= difficulty) return nonce;
  }
  throw new Error('no nonce found');
}

function powHash(salt: string, nonce: string): Buffer {
  return createHash('sha256').update(`${salt}:${nonce}`, 'utf8').digest();
}

function checkDifficulty(difficulty: number): void {
  if (!Number.isInteger(difficulty) || difficulty < 0 || difficulty > MAX_POW_DIFFICULTY) {
    throw new RangeError(`difficulty must be an integer 0..${MAX_POW_DIFFICULTY}`);
  }
}
