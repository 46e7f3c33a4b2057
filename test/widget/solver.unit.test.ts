import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { solvePuzzle } from '../../widget/solver.ts';
import { walkWasm } from '../../pow/compile.ts';
import { attempt, instantiateWalk, passes, puzzleKey, WALK } from '../../pow/walk.ts';
import { issueWork, redeemWork } from '../../src/captcha/work.ts';
import { solveWork } from '../helpers/solve.ts';
import { tokenLifetime } from '../../widget/options.ts';

const walk = (await instantiateWalk(await walkWasm()))!;

describe('the walk (pow/walk.ts and walk.wat)', () => {
  it('walk.wat gives the same results as the TypeScript definition, in every lane, keys and nonces mixed', () => {
    const keys = [0, 1, 2].map((i) => puzzleKey(randomBytes(16).toString('base64url'), i));
    const nonces = [0, 1, 7, 8, 255, 65_536, 2 ** 31 - 1, 2 ** 32 - 1];
    const attempts = nonces.map((nonce, l) => ({ key: keys[l % 3], nonce }));
    expect(walk.results(attempts)).toEqual(attempts.map((a) => attempt(a.key, a.nonce)));
    // Fewer than eight at once, and the buffer's state from a run before does not leak in.
    expect(walk.results(attempts.slice(2, 5))).toEqual(attempts.slice(2, 5).map((a) => attempt(a.key, a.nonce)));
    expect(() => walk.results([...attempts, attempts[0]])).toThrow(RangeError);
  });

  it('results spread evenly: each top bit is set in about half of 400 attempts', () => {
    const key = puzzleKey(randomBytes(16).toString('base64url'), 0);
    const results: number[] = [];
    for (let n = 0; n < 400; n += 8)
      results.push(...walk.results([...Array(8).keys()].map((l) => ({ key, nonce: n + l }))));
    for (let bit = 31; bit >= 24; bit--) {
      const set = results.filter((r) => (r >>> bit) & 1).length;
      expect(set).toBeGreaterThan(140);
      expect(set).toBeLessThan(260);
    }
    expect(new Set(results).size).toBe(400);
  });

  it('the key is the id and the puzzle index: another of either changes every result', () => {
    const id = randomBytes(16).toString('base64url');
    const other = randomBytes(16).toString('base64url');
    expect(attempt(puzzleKey(id, 0), 5)).not.toBe(attempt(puzzleKey(id, 1), 5));
    expect(attempt(puzzleKey(id, 0), 5)).not.toBe(attempt(puzzleKey(other, 0), 5));
    expect(passes(0x00ff_ffff, 8)).toBe(true);
    expect(passes(0x0100_0000, 8)).toBe(false);
    expect(passes(0, 32)).toBe(true);
    expect(passes(1, 32)).toBe(false);
  });
});

describe('widget solver (what the worker and the page fallback run)', () => {
  it('finds, with both engines, the first nonce that passes', async () => {
    for (const bits of [1, 4, 7]) {
      const id = randomBytes(16).toString('base64url');
      const key = puzzleKey(id, 3);
      const wasm = await solvePuzzle(id, 3, bits, { engine: 'wasm', walk });
      const js = (await solvePuzzle(id, 3, bits, { engine: 'js' }))!;
      expect(wasm).toEqual(js);
      expect(passes(attempt(key, js.nonce), bits)).toBe(true);
      for (let n = 0; n < js.nonce; n++) expect(passes(attempt(key, n), bits)).toBe(false);
    }
  });

  it('the search finds a nonce in any lane and from any start', () => {
    const key = puzzleKey(randomBytes(16).toString('base64url'), 0);
    const first = (bits: number, start: number): number => {
      for (let n = start; ; n++) if (passes(attempt(key, n), bits)) return n;
    };
    const lanes = new Set<number>();
    for (const start of [0, 3, 8, 101, 2 ** 30]) {
      let found = -1;
      for (let s = start; found < 0; s += WALK.lanes * 4) found = walk.search(key, 4, s, 4);
      expect(found).toBe(first(4, start));
      lanes.add((found - start) % WALK.lanes);
    }
    expect(lanes.size).toBeGreaterThan(1);
  });

  it('solves a whole ticket the same way a bot with our code does, and the server accepts it', async () => {
    const key = randomBytes(32);
    const view = issueWork(key, { site: 's', purpose: 'v3', bind: '', size: { count: 6, bits: 5 }, now: 1 });
    const nonces: number[] = [];
    for (let i = 0; i < view.count; i++)
      nonces.push((await solvePuzzle(view.id, i, view.bits, { engine: 'wasm', walk }))!.nonce);
    expect(nonces.join(',')).toBe(solveWork(view).solutions);
    const checked = await redeemWork(
      key,
      async () => true,
      { ticket: view.ticket, solutions: nonces.join(',') },
      { site: 's', purposes: ['v3'], bind: '', now: 2 },
    );
    expect(checked.ok).toBe(true);
  });

  it('searchers in stripes cover the nonces between them, and one stops when another solved the puzzle', async () => {
    const id = randomBytes(16).toString('base64url');
    const key = puzzleKey(id, 0);
    const bits = 9;
    const blocksSeen: number[][] = [[], []];
    const found = await Promise.all(
      [0, 1].map((index) =>
        solvePuzzle(id, 0, bits, {
          engine: 'wasm',
          walk,
          stripe: { index, of: 2 },
          between: async () => void blocksSeen[index].push(0),
        }),
      ),
    );
    for (const f of found) expect(passes(attempt(key, f!.nonce), bits)).toBe(true);
    // Block b (32 nonces) belongs to searcher b mod 2.
    expect(Math.floor(found[0]!.nonce / 32) % 2).toBe(0);
    expect(Math.floor(found[1]!.nonce / 32) % 2).toBe(1);
    // The first nonce overall is the smaller of the two stripes' firsts.
    const alone = (await solvePuzzle(id, 0, bits, { engine: 'wasm', walk }))!;
    expect(Math.min(found[0]!.nonce, found[1]!.nonce)).toBe(alone.nonce);
    // Told the puzzle is solved, a searcher gives up after its current block.
    const hard = await solvePuzzle(id, 1, 31, {
      engine: 'wasm',
      walk,
      stripe: { index: 1, of: 2 },
      solvedElsewhere: () => true,
    });
    expect(hard).toBeUndefined();
  });

  it('stops when cancelled', async () => {
    await expect(solvePuzzle('salt', 32, 31, { engine: 'js', cancelled: () => true })).rejects.toThrow('cancelled');
    await expect(solvePuzzle('salt', 32, 31, { engine: 'wasm', walk, cancelled: () => true })).rejects.toThrow(
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
