/**
 * The proof-of-work worker: its own esbuild entry (widget/build.ts bundles it first and
 * hands its code to widget.js, which starts it from a Blob URL). Message in:
 * `{id, bits, indices, engine?}`; out: `{i, n, h}` per solved puzzle (nonce, hashes), then
 * `{done, engine}`, or `{e}` on failure. The SIMD search (pow/sha256-search.wat) where the
 * browser has WebAssembly SIMD; else hash-wasm's SHA-256; where a page's CSP forbids
 * compiling WebAssembly, the plain-JS SHA-256 (or WebCrypto when asked).
 */
import { createSHA256 } from 'hash-wasm';
import searchWasm from './pow/sha256-search.wat';
import { instantiateSearch, type SimdSearch } from './pow/search.ts';
import { solvePuzzle, type Engine, type WasmHasher } from './solver.ts';

interface Job {
  id: string;
  bits: number;
  indices: number[];
  engine?: Engine;
}

let simd: Promise<SimdSearch | undefined> | undefined;
let wasm: Promise<WasmHasher | undefined> | undefined;

/** The engine asked for, or the best this browser runs: simd, then wasm, then js. */
async function pick(asked: Engine | undefined): Promise<{ engine: Engine; simd?: SimdSearch; wasm?: WasmHasher }> {
  if (asked === undefined || asked === 'simd') {
    simd ??= instantiateSearch(searchWasm);
    const search = await simd;
    if (search) return { engine: 'simd', simd: search };
  }
  if (asked === undefined || asked === 'simd' || asked === 'wasm') {
    wasm ??= createSHA256().then(
      (h) => h as unknown as WasmHasher,
      () => undefined,
    );
    const hasher = await wasm;
    if (hasher) return { engine: 'wasm', wasm: hasher };
  }
  return { engine: asked === 'webcrypto' ? 'webcrypto' : 'js' };
}

onmessage = async (m: MessageEvent<Job>) => {
  const { id, bits, indices } = m.data;
  try {
    const chosen = await pick(m.data.engine);
    const engine = chosen.engine;
    for (const i of indices) {
      const { nonce, hashes } = await solvePuzzle(id, i, bits, chosen);
      postMessage({ i, n: nonce, h: hashes });
    }
    postMessage({ done: true, engine });
  } catch (err) {
    postMessage({ e: String(err) });
  }
};
