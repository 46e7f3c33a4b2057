/**
 * The proof-of-work worker: its own esbuild entry (src/bundles.ts bundles it first and
 * hands its code to widget.js, which starts it from a Blob URL). Every worker searches every
 * puzzle, in its own stripe of the nonces (solver.ts). Messages in: `{id, bits, count, stripe,
 * stripes, engine?}` to start, then `{solved: i}` when any worker solved puzzle i; out:
 * `{i, n, engine}` per puzzle this worker solved, or `{e}` on failure. walk.wat where
 * WebAssembly may be compiled; else (a page's CSP without 'wasm-unsafe-eval') the same walk in
 * plain JavaScript.
 */
import walkWasm from '../pow/walk.wat';
import { instantiateWalk, type WalkModule } from '../pow/walk.ts';
import { solvePuzzle, type Engine } from './solver.ts';

interface Job {
  id: string;
  bits: number;
  count: number;
  stripe: number;
  stripes: number;
  engine?: Engine;
}

let walk: Promise<WalkModule | undefined> | undefined;
const solved = new Set<number>();

/** The engine asked for, or the best this browser runs: wasm, then js. */
async function pick(asked: Engine | undefined): Promise<{ engine: Engine; walk?: WalkModule }> {
  if (asked !== 'js') {
    walk ??= instantiateWalk(walkWasm);
    const module = await walk;
    if (module) return { engine: 'wasm', walk: module };
  }
  return { engine: 'js' };
}

// Lets queued messages (another worker's `solved`) in between blocks, without a timer's clamp.
const channel = new MessageChannel();
const between = () =>
  new Promise<void>((resolve) => {
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(0);
  });

async function work(job: Job): Promise<void> {
  const chosen = await pick(job.engine);
  const stripe = { index: job.stripe, of: job.stripes };
  for (let i = 0; i < job.count; i++) {
    if (solved.has(i)) continue;
    const found = await solvePuzzle(job.id, i, job.bits, {
      ...chosen,
      stripe,
      between,
      solvedElsewhere: () => solved.has(i),
    });
    if (found) {
      solved.add(i);
      postMessage({ i, n: found.nonce, engine: chosen.engine });
    }
  }
}

onmessage = (m: MessageEvent<Job | { solved: number }>) => {
  if ('solved' in m.data) {
    solved.add(m.data.solved);
    return;
  }
  work(m.data).catch((err: unknown) => postMessage({ e: String(err) }));
};
