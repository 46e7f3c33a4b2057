/**
 * Solving the sub-puzzles of a work challenge (src/captcha/work.ts): for puzzle i, the first
 * nonce, counting up from 0, whose attempt of the walk (pow/walk.ts) under the puzzle's key
 * passes `bits`. Shared by the worker entry (work-worker.ts) and the on-page fallback.
 *
 * Engines: `wasm` (pow/walk.wat: the whole nonce loop in WebAssembly, eight attempts side by
 * side; what workers use) and `js` (pow/walk.ts's `attempt`, one at a time; where a page's CSP
 * forbids compiling WebAssembly, or on the page when workers are refused). Both find the same
 * nonce. Measured in bench/adversary.ts.
 */
import { attempt, passes, puzzleKey, WALK, type WalkModule } from '../pow/walk.ts';

export type Engine = 'wasm' | 'js';

export interface SolveOptions {
  engine: Engine;
  walk?: WalkModule;
  /** Checked between batches of attempts (a few ms each); returning true stops the search. */
  cancelled?: () => boolean;
  /** On the page: yield to the event loop every 40 ms. */
  onPage?: boolean;
}

/** Solves puzzle `i` of challenge `id`; resolves with the nonce and the attempts it took. */
export async function solvePuzzle(
  id: string,
  i: number,
  bits: number,
  opts: SolveOptions,
): Promise<{ nonce: number; attempts: number }> {
  const key = puzzleKey(id, i);
  const walk = opts.engine === 'wasm' ? opts.walk : undefined;
  if (walk) {
    // 16 rounds of eight attempts between checks for cancellation (about 15 ms).
    const rounds = 16;
    for (let start = 0; start < 2 ** 31 - WALK.lanes * rounds; start += WALK.lanes * rounds) {
      const nonce = walk.search(key, bits, start, rounds);
      if (nonce >= 0) return { nonce, attempts: nonce + 1 };
      if (opts.cancelled?.()) throw new Error('cancelled');
    }
    throw new Error('no nonce found');
  }
  const buffer = new Uint32Array(WALK.bufferWords);
  let yielded = performance.now();
  for (let nonce = 0; nonce < 2 ** 31; nonce++) {
    if (passes(attempt(key, nonce, buffer), bits)) return { nonce, attempts: nonce + 1 };
    if (nonce % 16 === 15) {
      if (opts.cancelled?.()) throw new Error('cancelled');
      if (opts.onPage && performance.now() - yielded > 40) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        yielded = performance.now();
      }
    }
  }
  throw new Error('no nonce found');
}
