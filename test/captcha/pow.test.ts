import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createPow, leadingZeroBits, POW_TTL_MS, solvePow, verifyPow } from '../../src/captcha/pow.ts';

describe('leadingZeroBits', () => {
  it('counts zero bits from the most significant end', () => {
    expect(leadingZeroBits(Uint8Array.of(0x80))).toBe(0);
    expect(leadingZeroBits(Uint8Array.of(0x01))).toBe(7);
    expect(leadingZeroBits(Uint8Array.of(0x00, 0x40))).toBe(9);
    expect(leadingZeroBits(Uint8Array.of(0x00, 0x00, 0x0f))).toBe(20);
    expect(leadingZeroBits(Uint8Array.of(0, 0))).toBe(16);
    expect(leadingZeroBits(new Uint8Array(0))).toBe(0);
  });
});

describe('createPow', () => {
  it('issues a random salt with an expiry', () => {
    const a = createPow(14, 1000);
    expect(a).toMatchObject({ difficulty: 14, expiresAt: 1000 + POW_TTL_MS });
    expect(Buffer.from(a.salt, 'base64url')).toHaveLength(16);
    expect(createPow(14, 1000).salt).not.toBe(a.salt);
    expect(() => createPow(33, 0)).toThrow(RangeError);
    expect(() => createPow(-1, 0)).toThrow(RangeError);
  });
});

describe('solvePow / verifyPow', () => {
  it('solves and verifies, with the documented hash input', () => {
    const salt = 'fixed-salt-for-test';
    const nonce = solvePow(salt, 12);
    expect(nonce).toMatch(/^\d{1,16}$/);
    expect(verifyPow(salt, 12, nonce)).toBe(true);
    const digest = createHash('sha256').update(`${salt}:${nonce}`).digest();
    expect(leadingZeroBits(digest)).toBeGreaterThanOrEqual(12);
    // the first nonce that works: every smaller one fails
    for (let n = 0; n < Number(nonce); n++) expect(verifyPow(salt, 12, String(n))).toBe(false);
  });

  it('ties the nonce to the salt and the difficulty', () => {
    const nonce = solvePow('salt-a', 10);
    // find a difficulty the nonce does not meet
    const bits = leadingZeroBits(createHash('sha256').update(`salt-a:${nonce}`).digest());
    expect(verifyPow('salt-a', bits + 1, nonce)).toBe(false);
    expect(verifyPow('salt-a', bits, nonce)).toBe(true);
    const otherBits = leadingZeroBits(createHash('sha256').update(`salt-b:${nonce}`).digest());
    expect(verifyPow('salt-b', 10, nonce)).toBe(otherBits >= 10);
  });

  it('rejects malformed nonces and difficulties', () => {
    for (const nonce of ['', '-1', '+1', '1.0', ' 1', '1 ', 'abc', '12345678901234567', '١٢']) {
      expect(verifyPow('s', 0, nonce)).toBe(false);
    }
    expect(verifyPow('s', 0, '1234567890123456')).toBe(true);
    expect(verifyPow('s', 33, '1')).toBe(false);
    expect(verifyPow('s', 1.5, '1')).toBe(false);
    expect(verifyPow('s', 0, 7 as unknown as string)).toBe(false);
  });
});
