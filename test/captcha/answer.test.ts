import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSecretKey } from 'node:crypto';
import {
  ANSWER_ALPHABET,
  answerMatches,
  deriveAnswer,
  generateAnswer,
  hashAnswer,
  sameAnswer,
} from '../../src/captcha/answer.ts';

describe('ANSWER_ALPHABET', () => {
  it('has no look-alike characters and no duplicates', () => {
    for (const ch of '0Oo1lIi5S2Z8Bbq') expect(ANSWER_ALPHABET).not.toContain(ch);
    expect(new Set(ANSWER_ALPHABET).size).toBe(ANSWER_ALPHABET.length);
    expect(ANSWER_ALPHABET).toMatch(/^[A-Z0-9]+$/);
  });
});

describe('generateAnswer', () => {
  it('draws the requested length from the alphabet', () => {
    expect(generateAnswer()).toHaveLength(5);
    expect(generateAnswer(8)).toHaveLength(8);
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) for (const ch of generateAnswer()) seen.add(ch);
    expect([...seen].sort().join('')).toBe([...ANSWER_ALPHABET].sort().join(''));
  });

  it('rejects silly lengths', () => {
    expect(() => generateAnswer(0)).toThrow(RangeError);
    expect(() => generateAnswer(2.5)).toThrow(RangeError);
  });
});

describe('hashAnswer / answerMatches', () => {
  const key = createSecretKey(Buffer.alloc(32, 7));
  const otherKey = createSecretKey(Buffer.alloc(32, 8));
  const id = 'challenge-one';
  const stored = hashAnswer('AC4K9', key, id);

  it('matches case-insensitively and ignores whitespace', () => {
    for (const given of ['AC4K9', 'ac4k9', '  Ac4K9\n', 'AC 4K9', '\tac4 k9 '])
      expect(answerMatches(stored, key, id, given)).toBe(true);
  });

  it('rejects other answers, other keys, other challenges, and junk', () => {
    expect(answerMatches(stored, key, id, 'AC4K7')).toBe(false);
    expect(answerMatches(stored, key, id, 'AC4K')).toBe(false);
    expect(answerMatches(stored, key, id, '')).toBe(false);
    expect(answerMatches(stored, otherKey, id, 'AC4K9')).toBe(false);
    expect(answerMatches(stored, key, 'challenge-two', 'AC4K9')).toBe(false);
    expect(answerMatches('not base64url!', key, id, 'AC4K9')).toBe(false);
    expect(answerMatches(stored.slice(0, 10), key, id, 'AC4K9')).toBe(false);
    expect(answerMatches(stored, key, id, 'A'.repeat(10_000))).toBe(false);
    expect(answerMatches(stored, key, id, 42 as unknown as string)).toBe(false);
  });

  it('is keyed and bound to the challenge: no stored value reveals the answer', () => {
    expect(hashAnswer('AC4K9', key, 'a')).not.toBe(hashAnswer('AC4K9', key, 'b'));
    expect(hashAnswer('AC4K9', key, id)).not.toBe(hashAnswer('AC4K9', otherKey, id));
    expect(hashAnswer('ac4k9', key, id)).toBe(stored);
    // 16 bytes of HMAC, base64url: 22 characters in the stored state.
    expect(stored).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('accepts exactly the normalised answer (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (answer, given) => {
        const norm = (s: string) => s.replace(/\s+/g, '').toUpperCase();
        expect(answerMatches(hashAnswer(answer, key, id), key, id, given)).toBe(norm(answer) === norm(given));
      }),
    );
  });
});

describe('deriveAnswer / sameAnswer', () => {
  const key = createSecretKey(Buffer.alloc(32, 7));
  const other = createSecretKey(Buffer.alloc(32, 8));

  it('is the same for the same key, challenge and regeneration, and differs when any changes', () => {
    const a = deriveAnswer(key, 'challenge-1', 0);
    expect(a).toMatch(new RegExp(`^[${ANSWER_ALPHABET}]{5}$`));
    expect(deriveAnswer(key, 'challenge-1', 0)).toBe(a);
    const others = [
      deriveAnswer(key, 'challenge-1', 1),
      deriveAnswer(key, 'challenge-2', 0),
      deriveAnswer(other, 'challenge-1', 0),
    ];
    for (const b of others) expect(b).not.toBe(a);
    expect(deriveAnswer(key, 'challenge-1', 0, 12)).toHaveLength(12);
    expect(() => deriveAnswer(key, 'x', 0, 0)).toThrow(RangeError);
  });

  it('draws every character about equally often', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 4000; i++)
      for (const ch of deriveAnswer(key, `c${i}`, 0)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(ANSWER_ALPHABET.length);
    // 20,000 draws over 25 characters: 800 expected each; a skewed mapping would be far off.
    for (const n of counts.values()) expect(Math.abs(n - 800)).toBeLessThan(160);
  });

  it('compares case- and whitespace-insensitively, and refuses what is not an answer', () => {
    expect(sameAnswer('AC4K9', ' ac4 k9 ')).toBe(true);
    expect(sameAnswer('AC4K9', 'AC4K')).toBe(false);
    expect(sameAnswer('AC4K9', 'AC4K99')).toBe(false);
    expect(sameAnswer('AC4K9', 42)).toBe(false);
    expect(sameAnswer('AC4K9', 'A'.repeat(65))).toBe(false);
  });
});
