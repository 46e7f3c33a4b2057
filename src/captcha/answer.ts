import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';

/**
 * Answers to v1 (image) challenges: derivation under a key, and a constant-time check of
 * what the user typed.
 */

/**
 * Characters an answer is drawn from: upper case only (input is case-folded), with both
 * sides of the usual look-alike pairs left out: 0/O, 1/I/L, 2/Z, 5/S, 8/B. The renderer
 * draws exactly these glyphs.
 */
export const ANSWER_ALPHABET = 'ACDEFGHJKMNPQRTUVWXY34679';

/** Longest input {@link sameAnswer} will look at; longer input cannot match. */
const MAX_GIVEN_LENGTH = 64;

function checkAnswerLength(length: number): void {
  if (!Number.isInteger(length) || length < 1 || length > 32) throw new RangeError('answer length must be 1..32');
}

/**
 * The answer of a v1 challenge's `regeneration`-th image, drawn from HMAC-SHA-256 under a
 * secret key (a TOKEN_KEY subkey) of the challenge id and the regeneration: nothing of the
 * answer is stored, and without the key the id and count tell nothing of it. Bytes map to
 * {@link ANSWER_ALPHABET} by rejection (a byte at or above the largest multiple of its size
 * is skipped), so every character is equally likely.
 */
export function deriveAnswer(key: KeyObject, challengeId: string, regeneration: number, length = 5): string {
  checkAnswerLength(length);
  const size = ANSWER_ALPHABET.length;
  const limit = 256 - (256 % size);
  let out = '';
  for (let block = 0; out.length < length; block++) {
    const bytes = createHmac('sha256', key).update(`${challengeId}\u0000${regeneration}\u0000${block}`).digest();
    for (let i = 0; i < bytes.length && out.length < length; i++) {
      if (bytes[i] < limit) out += ANSWER_ALPHABET[bytes[i] % size];
    }
  }
  return out;
}

/**
 * Whether `given` is `answer`, case- and whitespace-insensitive, compared in constant time
 * for a given length. Never throws: non-string or over-long input is a mismatch.
 */
export function sameAnswer(answer: string, given: unknown): boolean {
  if (typeof given !== 'string' || given.length > MAX_GIVEN_LENGTH) return false;
  const expected = Buffer.from(normaliseAnswer(answer), 'utf8');
  const actual = Buffer.from(normaliseAnswer(given), 'utf8');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/**
 * Normalises typed input: every whitespace character removed, upper-cased. So `" ab cd3 "`
 * and `"ABCD3"` are the same answer.
 */
export function normaliseAnswer(given: string): string {
  return given.replace(/\s+/g, '').toUpperCase();
}
