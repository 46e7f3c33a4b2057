import { randomInt } from 'node:crypto';
import { ANSWER_ALPHABET } from '../../src/captcha/answer.ts';

/** A random v1 answer of `length` (1..32) characters from ANSWER_ALPHABET (CSPRNG), for tests and benches. */
export function generateAnswer(length = 5): string {
  if (!Number.isInteger(length) || length < 1 || length > 32) throw new RangeError('answer length must be 1..32');
  let out = '';
  for (let i = 0; i < length; i++) out += ANSWER_ALPHABET[randomInt(ANSWER_ALPHABET.length)];
  return out;
}
