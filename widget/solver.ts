/**
 * Solving the sub-puzzles of a work challenge (src/captcha/work.ts): for puzzle i, a nonce
 * whose attempt of the walk (pow/walk.ts) under the puzzle's key passes `bits`. Shared by the
 * worker entry (work-worker.ts) and the on-page fallback.
 *
 * Engines: `wasm` (pow/walk.wat: the whole nonce loop in WebAssembly, eight attempts side by
 * side; what workers use) and `js` (pow/walk.ts's `attempt`, one at a time; where a page's CSP
 * forbids compiling WebAssembly, or on the page when workers are refused). Measured in
 * bench/adversary.ts.
 *
 * Several workers share each puzzle: nonces go in blocks, block b to worker b mod workers, so
 * every puzzle is solved by all cores at once and none sits idle while another finishes its
 * last puzzle (a person's 95th percentile is then close to the median). Alone (one stripe) the
 * search finds the first nonce that passes, as a bot counting up from 0 does.
 */
import { attempt, passes, puzzleKey, WALK, type WalkModule } from '../pow/walk.ts';

export type Engine = 'wasm' | 'js';

export interface SolveOptions {
  engine: Engine;
  walk?: WalkModule;
  /** This searcher's share of the nonces: blocks index, index + of, index + 2 of, ... */
  stripe?: { index: number; of: number };
  /** Awaited between blocks (a few ms each): where messages are read, or the page breathes. */
  between?: () => Promise<void>;
  /** Checked between blocks: true when another searcher solved this puzzle (the search ends with undefined). */
  solvedElsewhere?: () => boolean;
  /** Checked between blocks; returning true stops the search with an error. */
  cancelled?: () => boolean;
}

/** Solves puzzle `i` of challenge `id`: the nonce and the attempts this searcher made, or undefined when another solved it. */
export async function solvePuzzle(
  id: string,
  i: number,
  bits: number,
  opts: SolveOptions,
): Promise<{ nonce: number; attempts: number } | undefined> {
  const key = puzzleKey(id, i);
  const walk = opts.engine === 'wasm' ? opts.walk : undefined;
  // Blocks of 32 attempts in walk.wat, 8 in JavaScript: each some 4-8 ms on a desktop core, so
  // a searcher hears soon that another solved its puzzle (it finishes its block first).
  const block = walk ? WALK.lanes * 4 : 8;
  const { index, of } = opts.stripe ?? { index: 0, of: 1 };
  const buffer = walk ? undefined : new Uint32Array(WALK.bufferWords);
  let attempts = 0;
  for (let start = index * block; start < 2 ** 31 - block; start += of * block) {
    if (walk) {
      const nonce = walk.search(key, bits, start, block / WALK.lanes);
      if (nonce >= 0) return { nonce, attempts: attempts + nonce - start + 1 };
    } else {
      for (let nonce = start; nonce < start + block; nonce++)
        if (passes(attempt(key, nonce, buffer), bits)) return { nonce, attempts: attempts + nonce - start + 1 };
    }
    attempts += block;
    await opts.between?.();
    if (opts.cancelled?.()) throw new Error('cancelled');
    if (opts.solvedElsewhere?.()) return undefined;
  }
  throw new Error('no nonce found');
}
