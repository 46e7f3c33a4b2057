import { Jimp } from 'jimp';
import { describe, expect, it } from 'vitest';
import { ANSWER_ALPHABET } from '../../src/captcha/answer.ts';
import { CHALLENGE_HEIGHT, CHALLENGE_WIDTH, createRng, encodePng, renderChallenge } from '../../src/captcha/render.ts';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Fraction of pixels darker than `level`. */
async function darkShare(png: Buffer, level = 128): Promise<number> {
  const { bitmap } = await Jimp.fromBuffer(png);
  let dark = 0;
  for (let i = 0; i < bitmap.width * bitmap.height; i++) if (bitmap.data[i * 4] < level) dark++;
  return dark / (bitmap.width * bitmap.height);
}

describe('renderChallenge', () => {
  it('produces a 220x80 greyscale PNG', async () => {
    const png = await renderChallenge('AC4K9');
    expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    expect(png.readUInt32BE(16)).toBe(CHALLENGE_WIDTH);
    expect(png.readUInt32BE(20)).toBe(CHALLENGE_HEIGHT);
    expect(png[25]).toBe(0); // IHDR colour type: greyscale
    const img = await Jimp.fromBuffer(png);
    expect([img.bitmap.width, img.bitmap.height]).toEqual([CHALLENGE_WIDTH, CHALLENGE_HEIGHT]);
  });

  it('is deterministic for a given rng and varies otherwise', async () => {
    const a = await renderChallenge('HQ3TX', { rng: createRng(42) });
    const b = await renderChallenge('HQ3TX', { rng: createRng(42) });
    const c = await renderChallenge('HQ3TX', { rng: createRng(43) });
    expect(a.equals(b)).toBe(true);
    expect(a.equals(c)).toBe(false);
    expect((await renderChallenge('HQ3TX')).equals(await renderChallenge('HQ3TX'))).toBe(false);
  });

  it('draws ink: more dark pixels than a blank, less than half the image', async () => {
    const blank = await encodePng(new Uint8Array(CHALLENGE_WIDTH * CHALLENGE_HEIGHT).fill(230));
    expect(await darkShare(blank)).toBe(0);
    for (let seed = 1; seed <= 5; seed++) {
      const share = await darkShare(await renderChallenge('WMKAE', { rng: createRng(seed) }));
      expect(share).toBeGreaterThan(0.08);
      expect(share).toBeLessThan(0.5);
    }
  });

  it('renders every alphabet character and other lengths', async () => {
    for (let i = 0; i < ANSWER_ALPHABET.length; i += 5) {
      const png = await renderChallenge(ANSWER_ALPHABET.slice(i, i + 5), { rng: createRng(i) });
      expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    }
    expect((await renderChallenge('AC4', { rng: createRng(1) })).subarray(0, 8)).toEqual(PNG_SIGNATURE);
  });

  it('rejects characters outside the alphabet', async () => {
    await expect(renderChallenge('AB0O1')).rejects.toThrow(RangeError);
  });

  it('is a different picture for a different answer under the same rng', async () => {
    const a = await renderChallenge('AAAAA', { rng: createRng(7) });
    const b = await renderChallenge('AAAAC', { rng: createRng(7) });
    expect(a.equals(b)).toBe(false);
  });
});

describe('createRng', () => {
  it('yields [0, 1) values, reproducibly', () => {
    const r1 = createRng(5);
    const r2 = createRng(5);
    for (let i = 0; i < 1000; i++) {
      const v = r1();
      expect(v).toBe(r2());
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(1);
    }
  });
});

describe('encodePng', () => {
  it('checks the bitmap size', async () => {
    await expect(encodePng(new Uint8Array(10), 4, 4)).rejects.toThrow(RangeError);
  });
});
