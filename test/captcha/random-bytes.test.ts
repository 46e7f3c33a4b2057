import { describe, expect, it } from 'vitest';
import { pooledRandomBytes } from '../../src/captcha/random-bytes.ts';

describe('pooledRandomBytes', () => {
  it('gives values of the asked size, each its own copy, across pool refills', () => {
    const seen = new Set<string>();
    const values: Buffer[] = [];
    // 2,000 x 16 bytes: several 4 KiB pools.
    for (let i = 0; i < 2_000; i++) {
      const b = pooledRandomBytes(16);
      expect(b.length).toBe(16);
      values.push(b);
      seen.add(b.toString('hex'));
    }
    expect(seen.size).toBe(2_000);
    // Writing into one value leaves the others (and the pool) alone.
    const before = values[1].toString('hex');
    values[0].fill(0);
    expect(values[1].toString('hex')).toBe(before);
  });

  it('hands no byte out twice: consecutive values do not overlap', () => {
    const a = pooledRandomBytes(12);
    const b = pooledRandomBytes(12);
    expect(a.buffer === b.buffer && a.byteOffset === b.byteOffset).toBe(false);
    expect(a.equals(b)).toBe(false);
  });

  it('draws large sizes straight from the CSPRNG, and covers every byte value', () => {
    expect(pooledRandomBytes(1_000).length).toBe(1_000);
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 400; i++) for (const byte of pooledRandomBytes(64)) counts[byte]++;
    // 25,600 bytes: each value is expected 100 times; none missing is all a test can ask here.
    expect(counts.every((c) => c > 0)).toBe(true);
  });
});
