import { randomBytes } from 'node:crypto';

/**
 * Random bytes for the many small values a challenge needs (ids, salts, IVs), drawn from a
 * pool filled by the CSPRNG 4 KiB at a time, as Node pools randomUUID. Each byte is handed
 * out once; a value gets its own copy, rather than five small randomBytes calls per challenge.
 */
const POOL_BYTES = 4096;
/** Larger requests go straight to the CSPRNG. */
const MAX_POOLED = 256;

let pool = Buffer.alloc(0);
let used = 0;

export function pooledRandomBytes(size: number): Buffer {
  if (size > MAX_POOLED) return randomBytes(size);
  if (used + size > pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  const out = Buffer.from(pool.subarray(used, used + size));
  used += size;
  return out;
}
