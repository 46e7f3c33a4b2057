/**
 * The proof-of-work worker: its own esbuild entry (widget/build.ts bundles it first and
 * hands its code to widget.js, which starts it from a Blob URL). Message in:
 * `{id, bits, indices, engine?}`; out: `{i, n, h}` per solved puzzle (nonce, attempts), then
 * `{done, engine}`, or `{e}` on failure. walk.wat where WebAssembly may be compiled; else
 * (a page's CSP without 'wasm-unsafe-eval') the same walk in plain JavaScript.
 */
import walkWasm from '../pow/walk.wat';
import { instantiateWalk, type WalkModule } from '../pow/walk.ts';
import { solvePuzzle, type Engine } from './solver.ts';

interface Job {
  id: string;
  bits: number;
  indices: number[];
  engine?: Engine;
}

let walk: Promise<WalkModule | undefined> | undefined;

/** The engine asked for, or the best this browser runs: wasm, then js. */
async function pick(asked: Engine | undefined): Promise<{ engine: Engine; walk?: WalkModule }> {
  if (asked !== 'js') {
    walk ??= instantiateWalk(walkWasm);
    const module = await walk;
    if (module) return { engine: 'wasm', walk: module };
  }
  return { engine: 'js' };
}

onmessage = async (m: MessageEvent<Job>) => {
  const { id, bits, indices } = m.data;
  try {
    const chosen = await pick(m.data.engine);
    for (const i of indices) {
      const { nonce, attempts } = await solvePuzzle(id, i, bits, chosen);
      postMessage({ i, n: nonce, h: attempts });
    }
    postMessage({ done: true, engine: chosen.engine });
  } catch (err) {
    postMessage({ e: String(err) });
  }
};
