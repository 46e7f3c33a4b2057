import { walkWasm } from '../../pow/compile.ts';
import { instantiateWalk, puzzleKey, WALK } from '../../pow/walk.ts';
import type { WorkView } from '../../src/captcha/work.ts';

/**
 * What a client computes for a challenge, with our own code: the work's solutions (what a bot
 * on a server does) and the environment answer as the widget sends it.
 */

const walk = await instantiateWalk(await walkWasm());
if (!walk) throw new Error('WebAssembly is required to solve proofs of work');

/**
 * Solves every puzzle, counting nonces up from 0. Returns the solutions string (the nonces
 * joined by commas, in puzzle order) and the attempts made.
 */
export function solveWork(view: Pick<WorkView, 'id' | 'count' | 'bits'>): { solutions: string; attempts: number } {
  const out: number[] = [];
  let attempts = 0;
  for (let i = 0; i < view.count; i++) {
    const key = puzzleKey(view.id, i);
    let found = -1;
    for (let start = 0; found < 0; start += WALK.lanes * 64) found = walk!.search(key, view.bits, start, 64);
    out.push(found);
    attempts += found + 1;
  }
  return { solutions: out.join(','), attempts };
}

/** The environment answer as the widget sends it: the values joined by commas. */
export function formatAnswer(values: readonly number[]): string {
  return values.join(',');
}
