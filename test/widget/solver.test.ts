import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createSHA256 } from 'hash-wasm';
import { solvePuzzle, type WasmHasher } from '../../widget/solver.ts';
import { instantiateSearch, NONCES_PER_ROUND } from '../../widget/pow/search.ts';
import { searchWasm } from '../../widget/pow/compile.ts';
import { checkWork, issueWork, leadingZeroBits, puzzleHash, solveWork } from '../../src/captcha/work.ts';
import { tokenLifetime } from '../../widget/options.ts';

describe('widget solver (what the worker and the page fallback run)', () => {
  it('finds, with every engine, the first nonce the server accepts', async () => {
    const wasm = (await createSHA256()) as unknown as WasmHasher;
    const simd = await instantiateSearch(await searchWasm());
    expect(simd).toBeDefined();
    for (const engine of ['simd', 'wasm', 'webcrypto', 'js'] as const) {
      for (const bits of [0, 1, 8, 11]) {
        const id = randomBytes(16).toString('base64url');
        const { nonce } = await solvePuzzle(id, 3, bits, { engine, wasm, simd });
        expect(leadingZeroBits(puzzleHash(id, 3, String(nonce)))).toBeGreaterThanOrEqual(bits);
        for (let n = 0; n < nonce; n++) expect(leadingZeroBits(puzzleHash(id, 3, String(n)))).toBeLessThan(bits);
      }
    }
  });

  it('solves a whole ticket the same way the native solver does', async () => {
    const key = randomBytes(32);
    const view = issueWork(key, { site: 's', purpose: 'v3', bind: '', size: { count: 6, bits: 7 }, now: 1 });
    const nonces: number[] = [];
    for (let i = 0; i < view.count; i++)
      nonces.push((await solvePuzzle(view.id, i, view.bits, { engine: 'js' })).nonce);
    expect(nonces.join(',')).toBe(solveWork(view).solutions);
    expect(
      checkWork(
        key,
        { ticket: view.ticket, solutions: nonces.join(',') },
        { site: 's', purposes: ['v3'], bind: '', now: 2 },
      ).ok,
    ).toBe(true);
  });

  it('its own SHA-256 decides like node’s across the one- and two-block message lengths', async () => {
    for (const len of [40, 53, 54, 55, 56, 63, 64, 70]) {
      const id = 'x'.repeat(len);
      const { nonce } = await solvePuzzle(id, 0, 8, { engine: 'js' });
      for (let n = 0; n <= nonce; n++) expect(leadingZeroBits(puzzleHash(id, 0, String(n))) >= 8).toBe(n === nonce);
    }
  });

  it('the SIMD search decides like node’s across digit-count changes, every prefix length and lane', async () => {
    const simd = (await instantiateSearch(await searchWasm()))!;
    const first = (prefix: string, bits: number, start: number): number => {
      for (let n = start; ; n++) if (leadingZeroBits(puzzleHash(prefix, 0, String(n))) >= bits) return n;
    };
    for (const len of [1, 5, 22, 30, 36]) {
      const id = randomBytes(24).toString('base64url').slice(0, len);
      const prefix = new TextEncoder().encode(`${id}.0:`);
      for (const start of [0, 6, 97, 9_995, 999_999_998, 10 ** 15 - 3]) {
        let found = -1;
        for (let s = start; found < 0; s += NONCES_PER_ROUND * 4096) found = simd.search(prefix, 6, s, 4096);
        expect(found).toBe(first(id, 6, start));
      }
    }
    expect(() => simd.search(new Uint8Array(40), 6, 0, 1)).toThrow('one block');
  });

  it('stops when cancelled', async () => {
    await expect(solvePuzzle('salt', 32, 32, { engine: 'js', cancelled: () => true })).rejects.toThrow('cancelled');
    const simd = await instantiateSearch(await searchWasm());
    await expect(solvePuzzle('salt', 32, 32, { engine: 'simd', simd, cancelled: () => true })).rejects.toThrow(
      'cancelled',
    );
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
