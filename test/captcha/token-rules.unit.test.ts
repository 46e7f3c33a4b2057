import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  checkToken,
  NETWORK_MISMATCH_SCORE,
  spendToken,
  type TokenExpectation,
} from '../../src/captcha/token-rules.ts';
import { newTokenId, sealToken, TOKEN_TTL_MS, type TokenClaims } from '../../src/captcha/tokens.ts';
import { openStores } from '../../src/stores/index.ts';

const key = randomBytes(32);
const now = Date.UTC(2026, 11, 2, 12);
const claims = (over: Partial<TokenClaims> = {}): TokenClaims => ({
  id: newTokenId(),
  site: 'site-a',
  hostname: 'shop.test',
  iat: now - 1000,
  kind: 'v3',
  action: 'login',
  score: 0.9,
  cdata: null,
  net: '203.0.113.0/24',
  reasons: [],
  ...over,
});
const expected: TokenExpectation = { sitekey: 'site-a', minScore: 0.5, networkCheck: 'enforce' };

describe('the token rules (siteverify, the demo and the gateway alike)', () => {
  it('accepts a token of the site, in time, on its network, above the minimum', () => {
    const c = claims();
    const checked = checkToken(sealToken(c, key), key, { ...expected, network: c.net!, hostname: 'shop.test' }, now);
    expect(checked).toEqual({ ok: true, claims: c, markTtl: TOKEN_TTL_MS - 1000 + 60_000 });
  });

  it('refuses, in order: malformed, another site or host, expired, another network, below the minimum', () => {
    const refusal = (token: string, e: Partial<TokenExpectation> = {}) => {
      const checked = checkToken(token, key, { ...expected, ...e }, now);
      return checked.ok ? 'ok' : checked.refusal;
    };
    expect(refusal('')).toBe('malformed');
    expect(refusal('x'.repeat(3000))).toBe('malformed');
    expect(refusal(sealToken(claims(), randomBytes(32)))).toBe('malformed');
    expect(refusal(sealToken(claims({ site: 'site-b' }), key))).toBe('other-site');
    expect(refusal(sealToken(claims(), key), { hostname: 'other.test' })).toBe('other-site');
    // Another site's expired token is another site's first.
    expect(refusal(sealToken(claims({ site: 'site-b', iat: 0 }), key))).toBe('other-site');
    expect(refusal(sealToken(claims({ iat: now - TOKEN_TTL_MS - 1 }), key))).toBe('expired');
    expect(refusal(sealToken(claims(), key), { network: '198.51.100.0/24' })).toBe('other-network');
    expect(refusal(sealToken(claims({ score: 0.3 }), key))).toBe('below-minimum');
    expect(refusal(sealToken(claims({ score: null }), key))).toBe('below-minimum');
    // Expiry is judged before the network and the score.
    expect(refusal(sealToken(claims({ iat: 0, score: 0 }), key), { network: 'x' })).toBe('expired');
  });

  it('keeps a token from another network at a low score where the site relaxes the check', () => {
    const checked = checkToken(
      sealToken(claims(), key),
      key,
      { ...expected, network: '198.51.100.0/24', networkCheck: 'score' },
      now,
    );
    expect(checked.ok && checked.claims.score).toBe(NETWORK_MISMATCH_SCORE);
    expect(checked.ok && checked.claims.reasons).toEqual(['remoteip_mismatch']);
    const off = checkToken(sealToken(claims(), key), key, { ...expected, network: 'y', networkCheck: 'off' }, now);
    expect(off.ok && off.claims.score).toBe(0.9);
  });

  it('is spent once', async () => {
    const stores = await openStores({});
    try {
      const c = claims();
      const spent = await Promise.all([1, 2, 3].map(() => spendToken(stores, c, 60_000)));
      expect(spent.filter(Boolean)).toEqual([true]);
    } finally {
      await stores.close();
    }
  });
});
