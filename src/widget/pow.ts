/**
 * The managed flow's proof of work: find a decimal nonce such that SHA-256 of the UTF-8 bytes
 * of `${salt}:${nonce}` starts with `difficulty` zero bits (the server's src/captcha/pow.ts).
 * It runs in a Web Worker made from a Blob URL holding {@link solvePow}'s own source, so it
 * needs no second file; where workers are refused (a CSP without `worker-src blob:`), it runs
 * on the page in slices instead.
 */

/** Called with the hashes tried so far; returning true stops the search. */
export type PowReport = (hashes: number) => boolean | void;

/**
 * `webcrypto`: crypto.subtle.digest, falling back to `js` where it is missing (pages not in a
 * secure context). `js`: the SHA-256 below, five to seven times faster in Chromium for these
 * one-block messages (each digest() costs a promise and a thread hop); see test/e2e/pow-timing.
 */
export type PowEngine = 'webcrypto' | 'js';

/**
 * Counts nonces up from 0, hashing with `engine` (WebCrypto in batches of concurrent digests,
 * or the small SHA-256 below).
 *
 * Self-contained on purpose: it is serialised with Function#toString into the worker, so
 * its body must not use anything from outside it (imports, module constants, helpers).
 */
export async function solvePow(salt: string, difficulty: number, report: PowReport, engine: PowEngine = 'webcrypto'): Promise<string> {
  const prefix = new TextEncoder().encode(salt + ':');
  const bytes = new Uint8Array(new ArrayBuffer(prefix.length + 16));
  bytes.set(prefix);
  /** Writes `${salt}:${n}` into bytes; returns its length. */
  const put = (n: number): number => {
    const digits = String(n);
    for (let i = 0; i < digits.length; i++) bytes[prefix.length + i] = digits.charCodeAt(i);
    return prefix.length + digits.length;
  };
  const enough = (word: number) => difficulty === 0 || word >>> (32 - difficulty) === 0;
  const subtle = engine === 'webcrypto' && globalThis.crypto && crypto.subtle;
  const batch = subtle ? 512 : 4096;
  // On the page (no worker) the plain-JS loop yields every 40 ms so the page stays responsive.
  const onPage = typeof document !== 'undefined';
  let yielded = performance.now();

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
  const firstWord = (len: number): number => {
    const blocks = ((len + 8) >> 6) + 1;
    M.fill(0, 0, blocks * 16);
    for (let i = 0; i < len; i++) M[i >> 2] |= bytes[i]! << (24 - (i & 3) * 8);
    M[len >> 2] |= 0x80 << (24 - (len & 3) * 8);
    M[blocks * 16 - 1] = len * 8;
    let h0 = H[0]!, h1 = H[1]!, h2 = H[2]!, h3 = H[3]!, h4 = H[4]!, h5 = H[5]!, h6 = H[6]!, h7 = H[7]!;
    for (let off = 0; off < blocks * 16; off += 16) {
      let a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, k = h7;
      for (let t = 0; t < 64; t++) {
        if (t < 16) W[t] = M[off + t]!;
        else {
          const x = W[t - 15]!;
          const y = W[t - 2]!;
          W[t] = (((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3)) + W[t - 7]! +
            (((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10)) + W[t - 16]!;
        }
        const t1 = (k + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + ((e & f) ^ (~e & g)) + K[t]! + W[t]!) | 0;
        const t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        k = g;
        g = f;
        f = e;
        e = (d + t1) | 0;
        d = c;
        c = b;
        b = a;
        a = (t1 + t2) | 0;
      }
      h0 = (h0 + a) | 0; h1 = (h1 + b) | 0; h2 = (h2 + c) | 0; h3 = (h3 + d) | 0;
      h4 = (h4 + e) | 0; h5 = (h5 + f) | 0; h6 = (h6 + g) | 0; h7 = (h7 + k) | 0;
    }
    return h0 >>> 0;
  };

  for (let start = 0; start < Number.MAX_SAFE_INTEGER; start += batch) {
    if (subtle) {
      // digest() copies its input when called, so one buffer serves the whole batch.
      const jobs: Promise<ArrayBuffer>[] = [];
      for (let n = start; n < start + batch; n++) jobs.push(subtle.digest('SHA-256', bytes.subarray(0, put(n))));
      const digests = await Promise.all(jobs);
      for (let i = 0; i < batch; i++) if (enough(new DataView(digests[i]!).getUint32(0))) return String(start + i);
    } else {
      for (let n = start; n < start + batch; n++) if (enough(firstWord(put(n)))) return String(n);
      if (onPage && performance.now() - yielded > 40) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        yielded = performance.now();
      }
    }
    if (report(start + batch)) throw new Error('cancelled');
  }
  throw new Error('no nonce found');
}

export interface PowJob {
  promise: Promise<string>;
  cancel(): void;
}

/** What managed widgets use: WebCrypto, as specified (see PowEngine for the trade-off). */
export const DEFAULT_POW_ENGINE: PowEngine = 'webcrypto';

/** Worker body: runs solvePow on the message `[salt, difficulty, engine]`, posts `{h}` progress and then `{n}` or `{e}`. */
const workerSource = () =>
  `var solve=${solvePow};onmessage=function(m){solve(m.data[0],m.data[1],function(h){postMessage({h:h})},m.data[2])` +
  `.then(function(n){postMessage({n:n})},function(e){postMessage({e:String(e)})})}`;

/**
 * Solves in a Web Worker (falling back to the page), reporting the expected fraction done
 * (1 - e^(-hashes / 2^difficulty): the search is memoryless, so this is the chance to have
 * finished by now).
 */
export function startPow(salt: string, difficulty: number, onProgress: (fraction: number) => void, engine = DEFAULT_POW_ENGINE): PowJob {
  const expected = 2 ** difficulty;
  const progress = (hashes: number) => onProgress(1 - Math.exp(-hashes / expected));
  let cancelled = false;
  let worker: Worker | undefined;
  let url: string | undefined;
  const inPage = () => solvePow(salt, difficulty, (h) => (progress(h), cancelled), engine);
  const promise = new Promise<string>((resolve, reject) => {
    const fallBack = () => {
      cleanup();
      if (!cancelled) inPage().then(resolve, reject);
    };
    const cleanup = () => {
      worker?.terminate();
      worker = undefined;
      if (url) URL.revokeObjectURL(url);
      url = undefined;
    };
    try {
      url = URL.createObjectURL(new Blob([workerSource()], { type: 'text/javascript' }));
      worker = new Worker(url);
    } catch {
      return fallBack();
    }
    let heard = false;
    worker.onerror = (e) => {
      e.preventDefault();
      if (!heard) fallBack();
      else {
        cleanup();
        reject(new Error('worker failed'));
      }
    };
    worker.onmessage = (m: MessageEvent<{ h?: number; n?: string; e?: string }>) => {
      heard = true;
      const data = m.data;
      if (data.h !== undefined) return progress(data.h);
      cleanup();
      if (data.n !== undefined) resolve(data.n);
      else reject(new Error(data.e));
    };
    worker.postMessage([salt, difficulty, engine]);
  });
  return {
    promise,
    cancel() {
      cancelled = true;
      worker?.terminate();
      if (url) URL.revokeObjectURL(url);
    },
  };
}
