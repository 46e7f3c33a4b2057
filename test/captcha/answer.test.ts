import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ANSWER_ALPHABET, answerMatches, generateAnswer, generateSalt, hashAnswer } from '../../src/captcha/answer.ts';

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
  const salt = generateSalt();
  const stored = hashAnswer('AC4K9', salt);

  it('matches case-insensitively and ignores whitespace', () => {
    for (const given of ['AC4K9', 'ac4k9', '  Ac4K9\n', 'AC 4K9', '\tac4 k9 '])
      expect(answerMatches(stored, salt, given)).toBe(true);
  });

  it('rejects other answers, other salts, and junk', () => {
    expect(answerMatches(stored, salt, 'AC4K7')).toBe(false);
    expect(answerMatches(stored, salt, 'AC4K')).toBe(false);
    expect(answerMatches(stored, salt, '')).toBe(false);
    expect(answerMatches(stored, generateSalt(), 'AC4K9')).toBe(false);
    expect(answerMatches('not-hex', salt, 'AC4K9')).toBe(false);
    expect(answerMatches(stored.slice(0, 10), salt, 'AC4K9')).toBe(false);
    expect(answerMatches(stored, salt, 'A'.repeat(10_000))).toBe(false);
    expect(answerMatches(stored, salt, 42 as unknown as string)).toBe(false);
  });

  it('salts: the same answer hashes differently per salt', () => {
    expect(hashAnswer('AC4K9', 'a')).not.toBe(hashAnswer('AC4K9', 'b'));
    expect(hashAnswer('ac4k9', 'a')).toBe(hashAnswer('AC4K9', 'a'));
  });

  it('accepts exactly the normalised answer (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (answer, given) => {
        const norm = (s: string) => s.replace(/\s+/g, '').toUpperCase();
        expect(answerMatches(hashAnswer(answer, salt), salt, given)).toBe(norm(answer) === norm(given));
      }),
    );
  });
});
