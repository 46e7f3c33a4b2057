import { ANSWER_ALPHABET } from './answer.ts';

/**
 * Glyph masks for the challenge renderer: every answer character printed once with jimp's
 * bundled bitmap font (Open Sans, 64 px), reduced to a tightly cropped coverage mask kept in
 * memory. The renderer scales, rotates and shears these masks itself with bilinear sampling,
 * so a single source size serves every per-asset transform and jimp never runs per asset.
 */

/** Coverage of one character: `alpha[y * width + x]` in 0..1, with one empty pixel of margin. */
export interface GlyphMask {
  width: number;
  height: number;
  alpha: Float32Array;
}

/** Height in pixels of a capital in the source font (what a scale of 1 means). */
export const GLYPH_SOURCE_CAP_HEIGHT = 46;

let loading: Promise<ReadonlyMap<string, GlyphMask>> | undefined;

/**
 * The masks of every character in {@link ANSWER_ALPHABET}. Loads the font and prints the
 * glyphs on first call (a few tens of milliseconds); later calls share the same promise.
 */
export function loadGlyphs(): Promise<ReadonlyMap<string, GlyphMask>> {
  loading ??= buildGlyphs().catch((err: unknown) => {
    loading = undefined; // let a later call retry
    throw err;
  });
  return loading;
}

async function buildGlyphs(): Promise<ReadonlyMap<string, GlyphMask>> {
  // jimp loads here, with the first v1 image, rather than with the service.
  const [{ Jimp, loadFont, measureText }, { SANS_64_BLACK }] = await Promise.all([
    import('jimp'),
    import('jimp/fonts'),
  ]);
  const font = await loadFont(SANS_64_BLACK);
  const masks = new Map<string, GlyphMask>();
  for (const ch of ANSWER_ALPHABET) {
    const width = measureText(font, ch) + 8;
    const height = font.common.lineHeight;
    const image = new Jimp({ width, height }); // transparent
    image.print({ font, x: 4, y: 0, text: ch });
    masks.set(ch, cropAlpha(image.bitmap.data, width, height));
  }
  return masks;
}

/** The alpha channel of an RGBA bitmap, cropped to its ink plus a one-pixel empty margin. */
function cropAlpha(rgba: Buffer, width: number, height: number): GlyphMask {
  let minX = width;
  let minY = height;
  let maxX = -1;
  let maxY = -1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (rgba[(y * width + x) * 4 + 3] > 0) {
        if (x < minX) minX = x;
        if (x > maxX) maxX = x;
        if (y < minY) minY = y;
        if (y > maxY) maxY = y;
      }
    }
  }
  if (maxX < 0) throw new Error('font produced an empty glyph');
  const w = maxX - minX + 3;
  const h = maxY - minY + 3;
  const alpha = new Float32Array(w * h);
  for (let y = minY; y <= maxY; y++) {
    for (let x = minX; x <= maxX; x++) {
      alpha[(y - minY + 1) * w + (x - minX + 1)] = rgba[(y * width + x) * 4 + 3] / 255;
    }
  }
  return { width: w, height: h, alpha };
}
