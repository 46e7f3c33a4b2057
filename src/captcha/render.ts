import { randomBytes } from 'node:crypto';
import { loadGlyphs, GLYPH_SOURCE_CAP_HEIGHT, type GlyphMask } from './glyphs.ts';

/**
 * v1 challenge images. Everything per asset happens on raw buffers: glyph masks (prepared
 * once, see glyphs.ts) are placed with a random affine transform each (scale, stretch, shear,
 * rotation, vertical offset), touching their neighbours; a wide wavy band inverts what it
 * crosses, a thin wavy line and short arcs are drawn in ink, the whole layer is warped
 * sinusoidally, speckles are sprinkled, and the result is shaded over a grainy gradient.
 * jimp only encodes: 8-bit greyscale PNG, SUB filter, deflate level 1.
 *
 * bench/asset.ts measures its cost and bench/ocr.ts how often OCR solves it (figures in
 * bench/README.md); the inverting band is what defeats OCR most.
 */

/** Image size in pixels. */
export const CHALLENGE_WIDTH = 220;
export const CHALLENGE_HEIGHT = 80;

/** Uniform random numbers in [0, 1). */
export type Rng = () => number;

export interface RenderOptions {
  /** Source of randomness; the same rng sequence gives the same PNG bytes. Default: seeded from the CSPRNG. */
  rng?: Rng;
}

const W = CHALLENGE_WIDTH;
const H = CHALLENGE_HEIGHT;

/**
 * sfc32, a small fast generator with 128 bits of state. A number seed (tests) is spread over
 * the state; the default per-asset seed is 16 bytes from the CSPRNG, so the distortions of an
 * image cannot be recovered by searching a small seed space.
 */
export function createRng(seed: number | Uint8Array): Rng {
  const st = new Uint32Array(4);
  if (typeof seed === 'number') {
    let x = seed >>> 0;
    for (let i = 0; i < 4; i++) {
      x = (x + 0x9e3779b9) >>> 0; // splitmix32
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      st[i] = z ^ (z >>> 16);
    }
  } else {
    if (seed.length < 16) throw new RangeError('seed must be at least 16 bytes');
    for (let i = 0; i < 4; i++)
      st[i] = seed[i * 4] | (seed[i * 4 + 1] << 8) | (seed[i * 4 + 2] << 16) | (seed[i * 4 + 3] << 24);
  }
  let [a, b, c, d] = st as unknown as [number, number, number, number];
  for (let i = 0; i < 12; i++) next(); // mix the seed in
  function next(): number {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  }
  return next;
}

/**
 * Renders `answer` (characters of ANSWER_ALPHABET; throws on others) as a 220x80 greyscale PNG.
 */
export async function renderChallenge(answer: string, opts: RenderOptions = {}): Promise<Buffer> {
  const glyphs = await loadGlyphs();
  const masks = [...answer].map((ch) => {
    const m = glyphs.get(ch);
    if (!m) throw new RangeError(`cannot render character ${JSON.stringify(ch)}`);
    return m;
  });
  const rng = opts.rng ?? createRng(randomBytes(16));
  const ink = new Float32Array(W * H);
  placeGlyphs(ink, masks, rng);
  drawStrokes(ink, rng);
  const warped = warp(ink, rng);
  speckle(warped, rng);
  return encodePng(shade(warped, rng));
}

/**
 * Lays the glyphs left to right, touching, each scaled, stretched, sheared and rotated, at a
 * random height. Shrinks the whole row when wide glyphs would not fit.
 */
function placeGlyphs(ink: Float32Array, masks: GlyphMask[], rng: Rng): void {
  const base = (40 + rng() * 6) / GLYPH_SOURCE_CAP_HEIGHT;
  const shapes = masks.map((m) => {
    const s = base * (0.9 + rng() * 0.2);
    return {
      m,
      sx: s * (0.9 + rng() * 0.2),
      sy: s * (0.9 + rng() * 0.2),
      theta: (rng() - 0.5) * 0.4, // about ±11°
      shear: (rng() - 0.5) * 0.3,
      spacing: 0.92 + rng() * 0.08, // of the glyph's width: neighbours touch
    };
  });
  let total = shapes.reduce((sum, g) => sum + g.m.width * g.sx * g.spacing, 0);
  const fit = Math.min(1, (W - 12) / total);
  total *= fit;
  let x = (W - total) / 2 + (rng() - 0.5) * Math.max(0, W - total - 24);
  for (const g of shapes) {
    const sx = g.sx * fit;
    const sy = g.sy * fit;
    const advance = g.m.width * sx * g.spacing;
    const room = Math.max(0, H / 2 - (g.m.height * sy) / 2 - 2); // keep tails inside
    const cy = H / 2 + (rng() - 0.5) * Math.min(14, 2 * room);
    stamp(ink, g.m, x + advance / 2, cy, sx, sy, g.theta, g.shear);
    x += advance;
  }
}

/** Draws mask `m` centred on (cx, cy) under scale (sx, sy), shear, rotation: max-blends into ink. */
function stamp(
  ink: Float32Array,
  m: GlyphMask,
  cx: number,
  cy: number,
  sx: number,
  sy: number,
  theta: number,
  shear: number,
): void {
  // Forward: rotate(theta) * [[sx, shear*sy], [0, sy]]; sample with its inverse.
  const c = Math.cos(theta);
  const s = Math.sin(theta);
  const a = c * sx;
  const b = c * shear * sy - s * sy;
  const d = s * sx;
  const e = s * shear * sy + c * sy;
  const det = a * e - b * d;
  const ia = e / det;
  const ib = -b / det;
  const id = -d / det;
  const ie = a / det;
  const hw = m.width / 2;
  const hh = m.height / 2;
  const rx = Math.abs(a) * hw + Math.abs(b) * hh;
  const ry = Math.abs(d) * hw + Math.abs(e) * hh;
  const x0 = Math.max(0, Math.floor(cx - rx));
  const x1 = Math.min(W - 1, Math.ceil(cx + rx));
  const y0 = Math.max(0, Math.floor(cy - ry));
  const y1 = Math.min(H - 1, Math.ceil(cy + ry));
  const mw = m.width;
  const alpha = m.alpha;
  const maxU = m.width - 1;
  const maxV = m.height - 1;
  for (let y = y0; y <= y1; y++) {
    const dy = y + 0.5 - cy;
    for (let x = x0; x <= x1; x++) {
      const dx = x + 0.5 - cx;
      const u = ia * dx + ib * dy + hw;
      const v = id * dx + ie * dy + hh;
      if (u < 0 || v < 0 || u >= maxU || v >= maxV) continue;
      const ui = u | 0;
      const vi = v | 0;
      const fu = u - ui;
      const fv = v - vi;
      const i = vi * mw + ui;
      const val =
        (alpha[i] * (1 - fu) + alpha[i + 1] * fu) * (1 - fv) + (alpha[i + mw] * (1 - fu) + alpha[i + mw + 1] * fu) * fv;
      const o = y * W + x;
      if (val > ink[o]) ink[o] = val;
    }
  }
}

/**
 * Strokes through the text: a wide wavy band that inverts whatever it covers (glyph parts
 * turn light on dark, so the edges a person reads by survive while a binarised image falls
 * apart), a thinner wavy line in ink, and a few short thin arcs.
 */
function drawStrokes(ink: Float32Array, rng: Rng): void {
  wave(ink, rng, 2.5 + rng() * 1, true);
  wave(ink, rng, 0.9 + rng() * 0.4, false);
  for (let k = 0; k < 4; k++) {
    const cx = rng() * W;
    const cy = rng() * H;
    const r = 8 + rng() * 16;
    const start = rng() * Math.PI * 2;
    const sweep = 0.6 + rng() * 1.6;
    for (let t = 0; t < sweep; t += 0.7 / r) {
      const x = Math.round(cx + r * Math.cos(start + t));
      const y = cy + r * Math.sin(start + t);
      if (x >= 0 && x < W) fillSpan(ink, x, y - 0.6, y + 0.6, false);
    }
  }
}

/** A sinusoidal stroke of half-width `half` across most of the width, inked or inverting. */
function wave(ink: Float32Array, rng: Rng, half: number, invert: boolean): void {
  const y0 = H * (0.4 + rng() * 0.2);
  const amp = 6 + rng() * 8;
  const period = 60 + rng() * 80;
  const phase = rng() * Math.PI * 2;
  const slope = (rng() - 0.5) * 0.3;
  const from = Math.floor(rng() * 30);
  const to = W - Math.floor(rng() * 30);
  const k = (Math.PI * 2) / period;
  for (let x = from; x < to; x++) {
    const yc = y0 + amp * Math.sin(x * k + phase) + slope * (x - W / 2);
    // widen vertically where the stroke is steep so it keeps its width
    const dydx = amp * k * Math.cos(x * k + phase) + slope;
    const hv = half * Math.sqrt(1 + dydx * dydx);
    fillSpan(ink, x, yc - hv, yc + hv, invert);
  }
}

/** Covers column x between yTop and yBottom (anti-aliased ends): inks it, or inverts it. */
function fillSpan(ink: Float32Array, x: number, yTop: number, yBottom: number, invert: boolean): void {
  const a = Math.max(0, Math.floor(yTop));
  const b = Math.min(H - 1, Math.ceil(yBottom));
  for (let y = a; y <= b; y++) {
    const cover = Math.min(1, Math.min(y + 1, yBottom) - Math.max(y, yTop));
    if (cover <= 0) continue;
    const o = y * W + x;
    const v = ink[o];
    if (invert) ink[o] = v + cover * (1 - 2 * v);
    else if (cover > v) ink[o] = cover;
  }
}

/** Sinusoidal displacement: rows shift horizontally, columns vertically (two harmonics). */
function warp(src: Float32Array, rng: Rng): Float32Array {
  const out = new Float32Array(W * H);
  const rowShift = new Float32Array(H);
  const colShift = new Float32Array(W);
  const ax = 2 + rng() * 2.5;
  const px = rng() * Math.PI * 2;
  const lx = 40 + rng() * 40;
  for (let y = 0; y < H; y++) rowShift[y] = ax * Math.sin((y / lx) * Math.PI * 2 + px);
  const ay1 = 3 + rng() * 3;
  const ay2 = 0.5 + rng() * 1.5;
  const l1 = 90 + rng() * 80;
  const l2 = 25 + rng() * 20;
  const p1 = rng() * Math.PI * 2;
  const p2 = rng() * Math.PI * 2;
  for (let x = 0; x < W; x++) {
    colShift[x] = ay1 * Math.sin((x / l1) * Math.PI * 2 + p1) + ay2 * Math.sin((x / l2) * Math.PI * 2 + p2);
  }
  for (let y = 0; y < H; y++) {
    const rs = rowShift[y];
    for (let x = 0; x < W; x++) {
      const u = x + rs;
      const v = y + colShift[x];
      if (u < 0 || v < 0 || u >= W - 1 || v >= H - 1) continue;
      const ui = u | 0;
      const vi = v | 0;
      const fu = u - ui;
      const fv = v - vi;
      const i = vi * W + ui;
      out[y * W + x] =
        (src[i] * (1 - fu) + src[i + 1] * fu) * (1 - fv) + (src[i + W] * (1 - fu) + src[i + W + 1] * fu) * fv;
    }
  }
  return out;
}

/** Scattered dots, light and dark, of one or two pixels. */
function speckle(ink: Float32Array, rng: Rng): void {
  const count = 180 + Math.floor(rng() * 60);
  for (let k = 0; k < count; k++) {
    const o = Math.floor(rng() * (W - 1)) + Math.floor(rng() * (H - 1)) * W;
    const v = rng() < 0.6 ? 0.55 + rng() * 0.45 : 0;
    ink[o] = v;
    if (rng() < 0.4) ink[o + 1] = v;
  }
}

/** Ink coverage to grey levels over a softly varying, grainy light background. */
function shade(ink: Float32Array, rng: Rng): Uint8Array {
  const grey = new Uint8Array(W * H);
  const inkLevel = 25 + rng() * 45;
  const gx = (rng() - 0.5) * 40;
  const gy = (rng() - 0.5) * 30;
  const bgBase = 220 + rng() * 15;
  let seed = (rng() * 0xffffffff) >>> 0;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0; // cheap LCG for grain
      const bg = bgBase + (gx * x) / W + (gy * y) / H + ((seed >>> 24) - 128) / 12;
      const c = ink[y * W + x];
      const g = bg * (1 - c) + inkLevel * c;
      grey[y * W + x] = g < 0 ? 0 : g > 255 ? 255 : g;
    }
  }
  return grey;
}

/** The part of a jimp image that {@link encodePng} uses. */
interface PngEncoder {
  getBuffer(
    mime: 'image/png',
    options: { colorType: number; deflateLevel: number; filterType: number },
  ): Promise<Buffer>;
}

/**
 * Encodes an 8-bit grey bitmap (`grey[y * width + x]`) as a greyscale PNG with jimp's encoder
 * (pngjs): RGBA in, colour type 0 out, SUB filter, deflate level 1.
 */
export async function encodePng(grey: Uint8Array, width = W, height = H): Promise<Buffer> {
  if (grey.length !== width * height) throw new RangeError('bitmap size does not match width x height');
  const rgba = Buffer.allocUnsafe(width * height * 4);
  for (let i = 0, o = 0; i < grey.length; i++, o += 4) {
    const g = grey[i];
    rgba[o] = g;
    rgba[o + 1] = g;
    rgba[o + 2] = g;
    rgba[o + 3] = 255;
  }
  // jimp is loaded by the first image (glyphs.ts loads it too), not with the service.
  const { Jimp } = await import('jimp');
  // jimp's typings give fromBitmap's result as `any`; this is the one method used here.
  const image = Jimp.fromBitmap({ data: rgba, width, height }) as PngEncoder;
  return image.getBuffer('image/png', { colorType: 0, deflateLevel: 1, filterType: 1 });
}
