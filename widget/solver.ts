/**
 * Solving the sub-puzzles of a work challenge (src/captcha/work.ts): for puzzle i, the first
 * decimal nonce, counting up from 0, such that SHA-256 of `${id}.${i}:${nonce}` starts with
 * `bits` zero bits. Shared by the worker entry (work-worker.ts) and the on-page fallback.
 *
 * Engines: `simd` (pow/sha256-search.wat: the whole nonce loop in WebAssembly, eight nonces
 * per round in two SIMD vectors; what workers use where the browser has WebAssembly SIMD), `wasm`
 * (hash-wasm's SHA-256, one call per hash; where SIMD is missing), `webcrypto`
 * (crypto.subtle, in batches of concurrent digests: each digest costs a promise and a thread
 * hop) and `js` (the small SHA-256 below, returning only the first word of the digest, which
 * is all the check needs). Measured in bench/adversary.ts.
 */
import { NONCES_PER_ROUND, type SimdSearch } from './pow/search.ts';

export type Engine = 'simd' | 'wasm' | 'webcrypto' | 'js';

/** hash-wasm's hasher, as far as the solver uses it. */
export interface WasmHasher {
  init(): unknown;
  update(data: Uint8Array): unknown;
  digest(outputType: 'binary'): Uint8Array;
}

export interface SolveOptions {
  engine: Engine;
  wasm?: WasmHasher;
  simd?: SimdSearch;
  /** Called every few thousand hashes; returning true stops the search. */
  cancelled?: () => boolean;
  /** On the page: yield to the event loop every 40 ms. */
  onPage?: boolean;
}

// SHA-256 (FIPS 180-4) returning only the first word of the digest, which is all the
// check needs (difficulty <= 32). Round constants from the primes' roots, as the standard defines them.
const K = new Int32Array(64);
const H = new Int32Array(8);
for (let p = 2, i = 0; i < 64; p++) {
  let prime = true;
  for (let d = 2; d * d <= p; d++) if (p % d === 0) prime = false;
  if (!prime) continue;
  if (i < 8) H[i] = (Math.sqrt(p) % 1) * 4294967296;
  K[i++] = (Math.cbrt(p) % 1) * 4294967296;
}
const W = new Int32Array(64);
const M = new Int32Array(64);
const firstWord = (bytes: Uint8Array, len: number): number => {
  const blocks = ((len + 8) >> 6) + 1;
  M.fill(0, 0, blocks * 16);
  for (let i = 0; i < len; i++) M[i >> 2] |= bytes[i] << (24 - (i & 3) * 8);
  M[len >> 2] |= 0x80 << (24 - (len & 3) * 8);
  M[blocks * 16 - 1] = len * 8;
  let h0 = H[0],
    h1 = H[1],
    h2 = H[2],
    h3 = H[3],
    h4 = H[4],
    h5 = H[5],
    h6 = H[6],
    h7 = H[7];
  for (let off = 0; off < blocks * 16; off += 16) {
    let a = h0,
      b = h1,
      c = h2,
      d = h3,
      e = h4,
      f = h5,
      g = h6,
      k = h7;
    for (let t = 0; t < 64; t++) {
      if (t < 16) W[t] = M[off + t]!;
      else {
        const x = W[t - 15];
        const y = W[t - 2];
        W[t] =
          (((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3)) +
          W[t - 7] +
          (((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10)) +
          W[t - 16];
      }
      const t1 =
        (k +
          (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) +
          ((e & f) ^ (~e & g)) +
          K[t] +
          W[t]) |
        0;
      const t2 =
        ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) +
          ((a & b) ^ (a & c) ^ (b & c))) |
        0;
      k = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + k) | 0;
  }
  return h0 >>> 0;
};

/** Solves puzzle `i` of challenge `id`; resolves with the nonce and the hashes it took. */
export async function solvePuzzle(
  id: string,
  i: number,
  bits: number,
  opts: SolveOptions,
): Promise<{ nonce: number; hashes: number }> {
  const prefix = new TextEncoder().encode(`${id}.${i}:`);
  const bytes = new Uint8Array(prefix.length + 16);
  bytes.set(prefix);
  const put = (n: number): number => {
    const digits = String(n);
    for (let k = 0; k < digits.length; k++) bytes[prefix.length + k] = digits.charCodeAt(k);
    return prefix.length + digits.length;
  };
  const enough = (word: number) => bits === 0 || word >>> (32 - bits) === 0;
  const simd = opts.engine === 'simd' ? opts.simd : undefined;
  if (simd) {
    // 8,192 rounds of eight nonces between checks for cancellation (a few ms).
    const rounds = 8_192;
    for (let start = 0; start < Number.MAX_SAFE_INTEGER; start += NONCES_PER_ROUND * rounds) {
      const nonce = simd.search(prefix, bits, start, rounds);
      if (nonce >= 0) return { nonce, hashes: nonce + 1 };
      if (opts.cancelled?.()) throw new Error('cancelled');
    }
  }
  const subtle = opts.engine === 'webcrypto' && globalThis.crypto?.subtle;
  const wasm = opts.engine === 'wasm' ? opts.wasm : undefined;
  const batch = subtle ? 512 : 4096;
  let yielded = performance.now();
  for (let start = 0; start < Number.MAX_SAFE_INTEGER; start += batch) {
    if (subtle) {
      const jobs: Promise<ArrayBuffer>[] = [];
      for (let n = start; n < start + batch; n++) jobs.push(subtle.digest('SHA-256', bytes.slice(0, put(n))));
      const digests = await Promise.all(jobs);
      for (let k = 0; k < batch; k++)
        if (enough(new DataView(digests[k]).getUint32(0))) return { nonce: start + k, hashes: start + k + 1 };
    } else if (wasm) {
      for (let n = start; n < start + batch; n++) {
        wasm.init();
        wasm.update(bytes.subarray(0, put(n)));
        const d = wasm.digest('binary');
        if (enough(((d[0] << 24) | (d[1] << 16) | (d[2] << 8) | d[3]) >>> 0)) return { nonce: n, hashes: n + 1 };
      }
    } else {
      for (let n = start; n < start + batch; n++)
        if (enough(firstWord(bytes, put(n)))) return { nonce: n, hashes: n + 1 };
    }
    if (opts.cancelled?.()) throw new Error('cancelled');
    if (opts.onPage && performance.now() - yielded > 40) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      yielded = performance.now();
    }
  }
  throw new Error('no nonce found');
}
