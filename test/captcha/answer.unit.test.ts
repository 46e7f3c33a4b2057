import { describe, expect, it } from 'vitest';
import { createSecretKey } from 'node:crypto';
import { ANSWER_ALPHABET, deriveAnswer, sameAnswer } from '../../src/captcha/answer.ts';
import { generateAnswer } from '../helpers/answers.ts';

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
