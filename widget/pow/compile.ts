import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Compiles the WebAssembly text of the proof-of-work search to its binary with wabt (the
 * WebAssembly Binary Toolkit, built to JavaScript): at bundle time for the widget
 * (widget/build.ts) and in Node for tests and benchmarks. Server-side code, like build.ts.
 */
export const SEARCH_WAT = fileURLToPath(new URL('./sha256-search.wat', import.meta.url));

let compiled: Promise<Uint8Array<ArrayBuffer>> | undefined;

/** The binary of the .wat at `file` (the search by default). */
export async function compileWat(file = SEARCH_WAT): Promise<Uint8Array<ArrayBuffer>> {
  const { default: loadWabt } = await import('wabt');
  const wabt = await loadWabt();
  const parsed = wabt.parseWat(file, readFileSync(file, 'utf8'), { simd: true });
  try {
    parsed.validate();
    return new Uint8Array(parsed.toBinary({}).buffer);
  } finally {
    parsed.destroy();
  }
}

/** The search's binary, compiled once per process. */
export function searchWasm(): Promise<Uint8Array<ArrayBuffer>> {
  compiled ??= compileWat();
  return compiled;
}
