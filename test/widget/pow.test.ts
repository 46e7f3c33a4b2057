import { describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { solvePow } from '../../src/widget/pow.ts';
import { leadingZeroBits, verifyPow } from '../../src/captcha/pow.ts';
import { tokenLifetime } from '../../src/widget/options.ts';

describe('widget proof of work (the solver the worker runs)', () => {
  it('finds nonces the server accepts, with WebCrypto and with its own SHA-256', async () => {
    for (const engine of ['webcrypto', 'js'] as const) {
      for (const difficulty of [0, 1, 8, 12]) {
        const salt = randomBytes(16).toString('base64url');
        const nonce = await solvePow(salt, difficulty, () => false, engine);
        expect(verifyPow(salt, difficulty, nonce)).toBe(true);
        // The first acceptable nonce, counting up from 0, as the server's solvePow finds it.
        for (let n = 0; n < Number(nonce); n++) expect(verifyPow(salt, difficulty, String(n))).toBe(false);
      }
    }
  });

  it("its SHA-256 decides like node's across the one- and two-block message lengths", async () => {
    // Messages of 42..72 bytes cross the 55/56-byte padding edge into a second block. The
    // solver returns the first nonce its own SHA-256 accepts; node must agree on every one.
    for (const len of [40, 53, 54, 55, 56, 63, 64, 70]) {
      const salt = 'x'.repeat(len);
      const nonce = Number(await solvePow(salt, 8, () => false, 'js'));
      for (let n = 0; n <= nonce; n++) {
        const bits = leadingZeroBits(createHash('sha256').update(`${salt}:${n}`).digest());
        expect(bits >= 8).toBe(n === nonce);
      }
    }
  });

  it('reports progress and stops when asked', async () => {
    const seen: number[] = [];
    await expect(solvePow('salt', 32, (h) => (seen.push(h), h >= 2048), 'js')).rejects.toThrow('cancelled');
    expect(seen).toEqual([4096]);
  });
});

describe('token lifetime', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  it('keeps a token until 10 s before expires_at', () => {
    expect(tokenLifetime(new Date(now + 300_000).toISOString(), now)).toBe(290_000);
  });
  it('falls back to the service lifetime when the clock disagrees', () => {
    expect(tokenLifetime(new Date(now - 60_000).toISOString(), now)).toBe(290_000);
    expect(tokenLifetime(new Date(now + 3_600_000).toISOString(), now)).toBe(290_000);
    expect(tokenLifetime(new Date(now + 200_000).toISOString(), now)).toBe(190_000);
  });
});
