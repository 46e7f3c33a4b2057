/**
 * The proof-of-work worker: its own esbuild entry (widget/build.ts bundles it first and
 * hands its code to widget.js, which starts it from a Blob URL). Message in:
 * `{id, bits, indices, engine?}`; out: `{i, n, h}` per solved puzzle (nonce, hashes), then
 * `{done, engine}`, or `{e}` on failure. hash-wasm's SHA-256 where WebAssembly may be compiled
 * (a page's CSP may forbid it: then the plain-JS SHA-256, then WebCrypto).
 */
import { createSHA256 } from 'hash-wasm';
import { solvePuzzle, type Engine, type WasmHasher } from './solver.ts';

interface Job {
  id: string;
  bits: number;
  indices: number[];
  engine?: Engine;
}

let wasm: Promise<WasmHasher | undefined> | undefined;

onmessage = async (m: MessageEvent<Job>) => {
  const { id, bits, indices } = m.data;
  try {
    wasm ??= createSHA256().then(
      (h) => h as unknown as WasmHasher,
      () => undefined,
    );
    const hasher = m.data.engine === undefined || m.data.engine === 'wasm' ? await wasm : undefined;
    const engine: Engine = hasher ? 'wasm' : m.data.engine === 'webcrypto' ? 'webcrypto' : 'js';
    for (const i of indices) {
      const { nonce, hashes } = await solvePuzzle(id, i, bits, { engine, wasm: hasher });
      postMessage({ i, n: nonce, h: hashes });
    }
    postMessage({ done: true, engine });
  } catch (err) {
    postMessage({ e: String(err) });
  }
};
