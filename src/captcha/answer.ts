import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { pooledRandomBytes } from '../random-bytes.ts';

/**
 * Answers to v1 (image) challenges: generation, salted hashing for storage, and a
 * constant-time check of what the user typed.
 */

/**
 * Characters an answer is drawn from: upper case only (input is case-folded), with both
 * sides of the usual look-alike pairs left out: 0/O, 1/I/L, 2/Z, 5/S, 8/B. The renderer
 * draws exactly these glyphs.
 */
export const ANSWER_ALPHABET = 'ACDEFGHJKMNPQRTUVWXY34679';

/** Longest input {@link answerMatches} will look at; longer input cannot match. */
const MAX_GIVEN_LENGTH = 64;

/** A random answer of `length` characters from {@link ANSWER_ALPHABET} (CSPRNG). */
export function generateAnswer(length = 5): string {
  if (!Number.isInteger(length) || length < 1 || length > 32) throw new RangeError('answer length must be 1..32');
  let out = '';
  for (let i = 0; i < length; i++) out += ANSWER_ALPHABET[randomInt(ANSWER_ALPHABET.length)];
  return out;
}

/** A fresh per-challenge salt for {@link hashAnswer} (16 random bytes, base64url). */
export function generateSalt(): string {
  return pooledRandomBytes(16).toString('base64url');
}

/**
 * Normalises typed input: every whitespace character removed, upper-cased. So `" ab cd3 "`
 * and `"ABCD3"` are the same answer.
 */
export function normaliseAnswer(given: string): string {
  return given.replace(/\s+/g, '').toUpperCase();
}

/** HMAC-SHA-256 of the normalised answer keyed by `salt`, hex. What the challenge state stores. */
export function hashAnswer(answer: string, salt: string): string {
  return digest(normaliseAnswer(answer), salt).toString('hex');
}

/**
 * Whether `given` is the answer behind `storedHash` (from {@link hashAnswer} with the same
 * salt). Case-insensitive and whitespace-insensitive; the digests are compared with
 * `timingSafeEqual`. Never throws: a malformed stored hash or non-string input is a mismatch.
 */
export function answerMatches(storedHash: string, salt: string, given: string): boolean {
  if (typeof given !== 'string' || typeof storedHash !== 'string' || given.length > MAX_GIVEN_LENGTH) return false;
  const expected = Buffer.from(storedHash, 'hex');
  const actual = digest(normaliseAnswer(given), salt);
  if (expected.length !== actual.length) return false;
  return timingSafeEqual(expected, actual);
}

function digest(normalised: string, salt: string): Buffer {
  return createHmac('sha256', salt).update(normalised, 'utf8').digest();
}
