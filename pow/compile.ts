import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/**
 * Compiles WebAssembly text to its binary with wabt (the WebAssembly Binary Toolkit, built to
 * JavaScript): at bundle time for the widget (src/bundles.ts) and in Node for the server's
 * check of proofs, tests and benchmarks. Node-only, unlike walk.ts.
 */
export const WALK_WAT = fileURLToPath(new URL('./walk.wat', import.meta.url));
/** Where `npm run build` leaves walk.wat's binary (dist/pow/), so the compiled service never loads wabt. */
export const WALK_WASM = fileURLToPath(new URL('./walk.wasm', import.meta.url));

let compiled: Promise<Uint8Array<ArrayBuffer>> | undefined;

/** The binary of the .wat at `file`. */
export async function compileWat(file: string): Promise<Uint8Array<ArrayBuffer>> {
  const { default: loadWabt } = await import('wabt');
  const wabt = await loadWabt();
  const parsed = wabt.parseWat(file, readFileSync(file, 'utf8'));
  try {
    parsed.validate();
    return new Uint8Array(parsed.toBinary({}).buffer);
  } finally {
    parsed.destroy();
  }
}

/** Compiled (dist/pow/compile.js), this module reads the build's walk.wasm; from the sources it compiles walk.wat. */
const fromBuild = import.meta.url.endsWith('.js');

/**
 * walk.wat's binary, once per process, by one rule: the compiled service reads the walk.wasm
 * `npm run build` left beside this module (never loading wabt; a missing file rejects, naming
 * it), while the sources (tsx, tests, benchmarks) compile walk.wat with the same compileWat the
 * build runs.
 */
export function walkWasm(): Promise<Uint8Array<ArrayBuffer>> {
  compiled ??= fromBuild ? readBuilt() : compileWat(WALK_WAT);
  return compiled;
}

async function readBuilt(): Promise<Uint8Array<ArrayBuffer>> {
  try {
    return new Uint8Array(await readFile(WALK_WASM));
  } catch (err) {
    throw new Error(`${WALK_WASM} is missing: run npm run build`, { cause: err });
  }
}
