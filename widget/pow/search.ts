/**
 * The SIMD search (sha256-search.wat): the whole nonce loop of one puzzle inside
 * WebAssembly, eight nonces at a time. The module's bytes come from the bundle (widget/build.ts
 * compiles the .wat with wabt) or, in Node, from compile.ts. Instantiation fails where the
 * engine has no WebAssembly SIMD or the page's CSP forbids compiling WebAssembly: the caller
 * then falls back to the other engines (solver.ts).
 */

/** Where the module reads the prefix (see the memory map in sha256-search.wat). */
export const PREFIX_AT = 4096;
/** Nonces tried per round of `solve` (two SIMD groups of four). */
export const NONCES_PER_ROUND = 8;
/** The longest prefix that leaves room for 16 digits and the pad in one 64-byte block. */
export const MAX_PREFIX = 39;

interface SearchExports {
  memory: WebAssembly.Memory;
  solve(prefixLength: number, bits: number, start: number, rounds: number): number;
}

/** One instance of the search (one per worker: its memory holds one puzzle at a time). */
export interface SimdSearch {
  /**
   * The first nonce from `start` on, within `NONCES_PER_ROUND * rounds` nonces, whose SHA-256 of
   * prefix || decimal(nonce) starts with `bits` zero bits; -1 when none is in that range.
   */
  search(prefix: Uint8Array, bits: number, start: number, rounds: number): number;
}

/** Instantiates the module; undefined where this engine cannot run it. */
export async function instantiateSearch(bytes: Uint8Array<ArrayBuffer>): Promise<SimdSearch | undefined> {
  try {
    if (!WebAssembly.validate(bytes)) return undefined;
    const instance = await WebAssembly.instantiate(await WebAssembly.compile(bytes));
    const exports = instance.exports as unknown as SearchExports;
    return {
      search(prefix, bits, start, rounds) {
        if (prefix.length > MAX_PREFIX) throw new Error('prefix too long for one block');
        new Uint8Array(exports.memory.buffer, PREFIX_AT, prefix.length).set(prefix);
        return exports.solve(prefix.length, bits, start, rounds);
      },
    };
  } catch {
    return undefined;
  }
}
