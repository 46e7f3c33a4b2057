import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Compiles WebAssembly text to its binary with wabt (the WebAssembly Binary Toolkit, built to
 * JavaScript): at bundle time for the widget (widget/build.ts) and in Node for the server's
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

/** walk.wat's binary: the build's walk.wasm where there is one, else compiled once per process. */
export function walkWasm(): Promise<Uint8Array<ArrayBuffer>> {
  compiled ??= existsSync(WALK_WASM) ? Promise.resolve(new Uint8Array(readFileSync(WALK_WASM))) : compileWat(WALK_WAT);
  return compiled;
}
