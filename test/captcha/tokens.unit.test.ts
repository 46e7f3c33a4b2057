import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isExpired,
  MAX_TOKEN_LENGTH,
  newTokenId,
  openToken,
  sealToken,
  TOKEN_TTL_MS,
  type TokenClaims,
} from '../../src/captcha/tokens.ts';
import { TOKEN_LIMITS } from '../../src/captcha/wire.ts';
import { SCORE_REASONS } from '../../src/captcha/risk.ts';

const key = randomBytes(32);
const claims = (over: Partial<TokenClaims> = {}): TokenClaims => ({
  id: newTokenId(),
  site: 'sk_live_abc',
  hostname: 'shop.example',
  iat: 1_700_000_000_000,
  kind: 'v3',
  action: 'login',
  score: 0.9,
  cdata: 'order-42',
  net: '198.51.100.0/24',
  reasons: ['work', 'layout_engine'],
  ...over,
});

describe('sealToken / openToken', () => {
  it('carries every reason, those past the 32nd too (the bit set is summed, not OR-ed)', () => {
    const every = [...SCORE_REASONS];
    const opened = openToken(sealToken(claims({ reasons: every }), key), key);
    expect(opened).toMatchObject({ ok: true, claims: { reasons: every } });
    const late = ['work', 'hosting_network', 'browser_rate_very_high'];
    expect(openToken(sealToken(claims({ reasons: late }), key), key)).toMatchObject({
      ok: true,
      claims: { reasons: late },
    });
  });

  it('round-trips the claims', () => {
    const c = claims();
    expect(openToken(sealToken(c, key), key)).toEqual({ ok: true, claims: c });
    const nulls = claims({ kind: 'v1', action: null, score: null, cdata: null, net: null });
    expect(openToken(sealToken(nulls, key), key)).toEqual({ ok: true, claims: nulls });
  });

  it('opens only the one spelling of a token: other last characters and lengths are malformed', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // cdata of 0-2 more characters walks the token's length through every remainder mod 4.
    for (const cdata of ['', 'a', 'ab', 'abc']) {
      const token = sealToken(claims({ cdata }), key);
      const bytes = Buffer.from(token, 'base64url');
      for (const c of alphabet) {
        const variant = token.slice(0, -1) + c;
        const canonical = Buffer.from(variant, 'base64url').toString('base64url') === variant;
        const opened = openToken(variant, key);
        if (variant === token) expect(opened.ok).toBe(true);
        else if (!canonical) expect(opened).toEqual({ ok: false, reason: 'malformed' });
        // A canonical variant spells other bytes: it fails authentication instead.
        else expect(opened).toEqual({ ok: false, reason: 'tampered' });
      }
      expect(openToken(token + 'A', key).ok).toBe(false);
      expect(bytes.toString('base64url')).toBe(token);
    }
  });

  it('rounds the score to two decimals', () => {
    const opened = openToken(sealToken(claims({ score: 0.456 }), key), key);
    expect(opened.ok && opened.claims.score).toBe(0.46);
  });

  it('uses a fresh IV per seal and stays URL-safe', () => {
    const c = claims();
    const a = sealToken(c, key);
    const b = sealToken(c, key);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('stays within 2048 characters for the largest claims allowed', () => {
    // '"' and '\\' double in JSON: the worst case for size.
    const worst = (n: number) => '"\\'.repeat(n).slice(0, n);
    const big = claims({
      site: worst(TOKEN_LIMITS.site),
      hostname: worst(TOKEN_LIMITS.hostname),
      action: worst(TOKEN_LIMITS.action),
      cdata: worst(TOKEN_LIMITS.cdata),
      iat: Number.MAX_SAFE_INTEGER,
      score: 0.33,
    });
    const token = sealToken(big, key);
    expect(token.length).toBeLessThanOrEqual(MAX_TOKEN_LENGTH);
    expect(openToken(token, key)).toEqual({ ok: true, claims: big });
  });

  it('round-trips any in-bounds printable claims (property)', () => {
    const printable = (max: number) =>
      fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: max });
    fc.assert(
      fc.property(
        printable(64),
        fc.option(printable(255)),
        fc.option(fc.double({ min: 0, max: 1, noNaN: true })),
        (action, cdata, score) => {
          const c = claims({ action, cdata, score });
          const token = sealToken(c, key);
          expect(token.length).toBeLessThanOrEqual(MAX_TOKEN_LENGTH);
          const opened = openToken(token, key);
          expect(opened.ok).toBe(true);
          if (opened.ok) expect(opened.claims.cdata).toBe(cdata);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('throws on oversize or invalid claims', () => {
    expect(() => sealToken(claims({ action: 'a'.repeat(65) }), key)).toThrow(RangeError);
    expect(() => sealToken(claims({ cdata: 'c'.repeat(256) }), key)).toThrow(RangeError);
    expect(() => sealToken(claims({ cdata: 'naïve' }), key)).toThrow(RangeError);
    expect(() => sealToken(claims({ cdata: 'line\nbreak' }), key)).toThrow(RangeError);
    expect(() => sealToken(claims({ score: 1.5 }), key)).toThrow(RangeError);
    expect(() => sealToken(claims({ id: 'short' }), key)).toThrow(RangeError);
    expect(() => sealToken(claims(), randomBytes(16))).toThrow(RangeError);
  });

  it('reports wrong key and bit flips as tampered', () => {
    const token = sealToken(claims(), key);
    expect(openToken(token, randomBytes(32))).toEqual({ ok: false, reason: 'tampered' });
    const raw = Buffer.from(token, 'base64url');
    for (let byte = 1; byte < raw.length; byte++) {
      const flipped = Buffer.from(raw);
      flipped[byte] ^= 1 << (byte % 8);
      expect(openToken(flipped.toString('base64url'), key)).toEqual({ ok: false, reason: 'tampered' });
    }
  });

  it('rejects every single-character substitution', () => {
    const token = sealToken(claims(), key);
    for (let i = 0; i < token.length; i++) {
      const swapped = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
      expect(openToken(swapped, key).ok).toBe(false);
    }
  });

  it('reports garbage as malformed', () => {
    const token = sealToken(claims(), key);
    const raw = Buffer.from(token, 'base64url');
    const wrongVersion = Buffer.from(raw);
    wrongVersion[0] = 2;
    for (const bad of [
      '',
      'x',
      '!!!!',
      `${token}=`,
      token.slice(0, 20),
      token + 'A'.repeat(2048),
      wrongVersion.toString('base64url'),
    ]) {
      expect(openToken(bad, key)).toEqual({ ok: false, reason: 'malformed' });
    }
    expect(openToken(undefined as unknown as string, key)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('never throws and never opens random input (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.base64String(),
          fc.uint8Array().map((b) => Buffer.from(b).toString('base64url')),
        ),
        (s) => {
          expect(openToken(s, key).ok).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('rejects truncations of a real token', () => {
    const token = sealToken(claims(), key);
    for (let len = 0; len < token.length; len++) expect(openToken(token.slice(0, len), key).ok).toBe(false);
  });
});

describe('isExpired', () => {
  it('expires TOKEN_TTL_MS after issue', () => {
    const c = claims();
    expect(TOKEN_TTL_MS).toBe(300_000);
    expect(isExpired(c, c.iat)).toBe(false);
    expect(isExpired(c, c.iat + TOKEN_TTL_MS - 1)).toBe(false);
    expect(isExpired(c, c.iat + TOKEN_TTL_MS)).toBe(true);
  });
});

describe('newTokenId', () => {
  it('is 16 random bytes in base64url', () => {
    const ids = new Set(Array.from({ length: 1000 }, newTokenId));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(Buffer.from(id, 'base64url')).toHaveLength(16);
  });
});
