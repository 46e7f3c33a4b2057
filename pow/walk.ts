/**
 * The proof-of-work function, "the walk", shared by the server (which checks proofs) and the
 * widget (which finds them); no Node or DOM types here.
 *
 * An attempt at puzzle (key, nonce): the state starts as the nonce folded with the key's eight
 * words; a 64 KB buffer is filled from it word by word; then, 65,536 times, the state picks a
 * word by its top 14 bits, folds it in (xor, multiply, rotate) and writes it back changed. The
 * result is the final state mixed once more; the attempt passes when its top `bits` bits are
 * zero, so a puzzle of `bits` takes 2^bits attempts on average.
 *
 * Why this function: the steps are scalar 32-bit loads, stores and multiplies, each needing
 * the one before. WebAssembly runs those at close to native speed (walk.wat runs eight
 * attempts side by side so the CPU overlaps their chains), and native code gains nothing from
 * wide vectors or hash instructions (AVX-512 gathers and scatters measured slower than scalar
 * loads). A native solver is then about as fast as the widget's worker, where for SHA-256 it
 * was 4x to 48x (bench/adversary.ts measures both). Each attempt also needs its own 64 KB
 * buffer, which a GPU pays for in memory.
 *
 * `attempt` below is the definition, one attempt in plain TypeScript: the widget's fallback
 * where WebAssembly is refused, and the reference walk.wat is tested against.
 */

export const WALK = {
  /** Attempts walk.wat runs at once. */
  lanes: 8,
  /** Words in an attempt's buffer (64 KB). */
  bufferWords: 1 << 14,
  /** Steps of the walk. */
  steps: 1 << 16,
} as const;

/** Nonces are unsigned 32-bit integers, written in decimal. */
export const MAX_NONCE = 0xffff_ffff;

const TAG = 0x77616c6b; // "walk"
/** A step's index is the state's top bits: as many as address the buffer. */
const INDEX_SHIFT = 32 - Math.log2(WALK.bufferWords);

/** lowbias32 (Chris Wellons' 32-bit integer hash): a full-avalanche mix of one word. */
function mix(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

const rotl13 = (x: number) => ((x << 13) | (x >>> 19)) >>> 0;

/**
 * The key of puzzle `i` of challenge `id` (16 random bytes in base64url, chosen and signed by
 * the server): the id's bytes as four little-endian words, `i`, a tag and two zero words.
 */
export function puzzleKey(id: string, i: number): Uint32Array {
  const bytes = atob(id.replace(/-/g, '+').replace(/_/g, '/'));
  const key = new Uint32Array(8);
  for (let b = 0; b < Math.min(16, bytes.length); b++) key[b >> 2] |= bytes.charCodeAt(b) << ((b & 3) * 8);
  key[4] = i;
  key[5] = TAG;
  return key;
}

/** One attempt: the result for `nonce` under `key` (`buffer` is scratch, reused between calls). */
export function attempt(key: Uint32Array, nonce: number, buffer = new Uint32Array(WALK.bufferWords)): number {
  let x = nonce >>> 0;
  for (let t = 0; t < 8; t++) x = mix(x ^ key[t]);
  for (let j = 0; j < WALK.bufferWords; j++) {
    x = (Math.imul(rotl13(x), 0x9e3779b1) ^ j) >>> 0;
    buffer[j] = x;
  }
  for (let s = 0; s < WALK.steps; s++) {
    const j = x >>> INDEX_SHIFT;
    const v = buffer[j];
    x = rotl13(Math.imul(x ^ v, 0x2545f491));
    buffer[j] = v + x;
  }
  return mix(x ^ key[0]);
}

/** Whether a result passes at `bits` (1 to 32): its top `bits` bits are zero. */
export function passes(result: number, bits: number): boolean {
  return bits >= 32 ? result === 0 : result >>> (32 - bits) === 0;
}

interface WalkExports {
  memory: WebAssembly.Memory;
  run(): void;
  search(bits: number, start: number, rounds: number): number;
}

/** walk.wat, instantiated: one per thread (its memory holds eight attempts at a time). */
export interface WalkModule {
  /** Results of up to eight attempts at once, each with its own key and nonce. */
  results(attempts: ReadonlyArray<{ key: Uint32Array; nonce: number }>): number[];
  /**
   * The first nonce from `start` on, within `WALK.lanes * rounds` nonces, that passes `bits`
   * (1 to 31) under `key`; -1 when none does. `start + WALK.lanes * rounds` stays below 2^31.
   */
  search(key: Uint32Array, bits: number, start: number, rounds: number): number;
}

/** Instantiates walk.wat's binary; undefined where this engine cannot (no WebAssembly, or a CSP forbids it). */
export async function instantiateWalk(bytes: Uint8Array<ArrayBuffer>): Promise<WalkModule | undefined> {
  try {
    const instance = await WebAssembly.instantiate(await WebAssembly.compile(bytes));
    const x = instance.exports as unknown as WalkExports;
    // Keys, nonces and results (walk.wat's memory map); the memory never grows, so one view.
    const m = new Uint32Array(x.memory.buffer, 0, 80);
    return {
      results(attempts) {
        if (attempts.length > WALK.lanes) throw new RangeError('at most eight attempts at once');
        attempts.forEach((a, l) => {
          m.set(a.key, l * 8);
          m[64 + l] = a.nonce;
        });
        x.run();
        return Array.from(m.subarray(72, 72 + attempts.length));
      },
      search(key, bits, start, rounds) {
        for (let l = 0; l < WALK.lanes; l++) m.set(key, l * 8);
        return x.search(bits, start, rounds);
      },
    };
  } catch {
    return undefined;
  }
}
