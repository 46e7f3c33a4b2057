import { randomBytes } from 'node:crypto';
import { Jimp } from 'jimp';
import { loadGlyphs, GLYPH_SOURCE_CAP_HEIGHT, type GlyphMask } from './glyphs.ts';

/**
 * v1 challenge images. Everything per asset happens on raw buffers: glyph masks (prepared
 * once, see glyphs.ts) are placed with a random affine transform each, crossing curves are
 * drawn through them, the whole ink layer is warped sinusoidally, a region is inverted, noise
 * is sprinkled, and the grey result is handed to jimp's PNG encoder as 8-bit greyscale with
 * fast deflate. Defences against OCR: touching/overlapping glyphs, stroke-width curves in ink
 * colour through the text, warp, partial inversion, speckles.
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

/** mulberry32: a small fast deterministic generator, for tests and for per-asset noise. */
export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Loads the glyph masks now rather than on the first render. */
export async function prepareRenderer(): Promise<void> {
  await loadGlyphs();
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
  const rng = opts.rng ?? createRng(randomBytes(4).readUInt32LE(0));
  const ink = new Float32Array(W * H);
  placeGlyphs(ink, masks, rng);
  if (!process.env.CAP_NOCURVES) drawCurves(ink, rng);
  const warped = process.env.CAP_NOWARP ? ink : warp(ink, rng);
  if (process.env.CAP_INVERT) invertRegion(warped, rng);
  if (!process.env.CAP_NOSPECK) speckle(warped, rng);
  return encodePng(shade(warped, rng));
}

/** Lays the glyphs left to right, overlapping, each scaled, stretched, sheared and rotated. */
function placeGlyphs(ink: Float32Array, masks: GlyphMask[], rng: Rng): void {
  const n = masks.length;
  const capTarget = 40 + rng() * 6;
  const base = capTarget / GLYPH_SOURCE_CAP_HEIGHT;
  const shapes = masks.map((m) => {
    const s = base * (0.9 + rng() * 0.2);
    const sx = s * (0.9 + rng() * 0.2);
    const sy = s * (0.9 + rng() * 0.2);
    const theta = (rng() - 0.5) * 0.4; // about ±11°
    const shear = (rng() - 0.5) * 0.3;
    return { m, sx, sy, theta, shear, advance: m.width * sx * (0.92 + rng() * 0.08) };
  });
  const total = shapes.reduce((sum, g) => sum + g.advance, 0);
  let x = (W - total) / 2 + (rng() - 0.5) * Math.max(0, W - total - 24);
  for (let i = 0; i < n; i++) {
    const g = shapes[i]!;
    const cx = x + g.advance / 2;
    const cy = H / 2 + (rng() - 0.5) * 14;
    stamp(ink, g.m, cx, cy, g.sx, g.sy, g.theta, g.shear);
    x += g.advance;
  }
}

/** Draws mask `m` centred on (cx, cy) under scale (sx, sy), shear, rotation: max-blends into ink. */
function stamp(ink: Float32Array, m: GlyphMask, cx: number, cy: number, sx: number, sy: number, theta: number, shear: number): void {
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
        (alpha[i]! * (1 - fu) + alpha[i + 1]! * fu) * (1 - fv) + (alpha[i + mw]! * (1 - fu) + alpha[i + mw + 1]! * fu) * fv;
      const o = y * W + x;
      if (val > ink[o]!) ink[o] = val;
    }
  }
}

/** Two wavy curves of about stroke width through the text band, plus a few short thin arcs. */
function drawCurves(ink: Float32Array, rng: Rng): void {
  for (let k = 0; k < 2; k++) {
    const y0 = H * (0.4 + rng() * 0.2);
    const amp = k === 0 ? 9 + rng() * 6 : 5 + rng() * 10;
    const period = k === 0 ? 55 + rng() * 40 : 70 + rng() * 90;
    const phase = rng() * Math.PI * 2;
    const slope = (rng() - 0.5) * 0.3;
    const half = k === 0 ? 1.5 + rng() * 0.4 : 0.9 + rng() * 0.4; // one survives a 3x3 opening
    const from = Math.floor(rng() * 30);
    const to = W - Math.floor(rng() * 30);
    for (let x = from; x < to; x++) {
      const yc = y0 + amp * Math.sin((x / period) * Math.PI * 2 + phase) + slope * (x - W / 2);
      // widen vertically where the curve is steep so the stroke keeps its width
      const dydx = (amp * Math.PI * 2 * Math.cos((x / period) * Math.PI * 2 + phase)) / period + slope;
      const hv = half * Math.sqrt(1 + dydx * dydx);
      fillSpan(ink, x, yc - hv, yc + hv);
    }
  }
  for (let k = 0; k < 4; k++) {
    const cx = rng() * W;
    const cy = rng() * H;
    const r = 8 + rng() * 16;
    const start = rng() * Math.PI * 2;
    const sweep = 0.6 + rng() * 1.6;
    for (let t = 0; t < sweep; t += 0.7 / r) {
      const x = Math.round(cx + r * Math.cos(start + t));
      const y = cy + r * Math.sin(start + t);
      if (x >= 0 && x < W) fillSpan(ink, x, y - 0.6, y + 0.6);
    }
  }
}

/** Sets coverage in column x between yTop and yBottom, anti-aliased at both ends. */
function fillSpan(ink: Float32Array, x: number, yTop: number, yBottom: number): void {
  const a = Math.max(0, Math.floor(yTop));
  const b = Math.min(H - 1, Math.ceil(yBottom));
  for (let y = a; y <= b; y++) {
    const cover = Math.min(y + 1, yBottom) - Math.max(y, yTop);
    if (cover <= 0) continue;
    const o = y * W + x;
    const v = Math.min(1, cover);
    if (v > ink[o]!) ink[o] = v;
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
  const ay2 = 1 + rng() * 2;
  const l1 = 90 + rng() * 80;
  const l2 = 25 + rng() * 20;
  const p1 = rng() * Math.PI * 2;
  const p2 = rng() * Math.PI * 2;
  for (let x = 0; x < W; x++) {
    colShift[x] = ay1 * Math.sin((x / l1) * Math.PI * 2 + p1) + ay2 * Math.sin((x / l2) * Math.PI * 2 + p2);
  }
  for (let y = 0; y < H; y++) {
    const rs = rowShift[y]!;
    for (let x = 0; x < W; x++) {
      const u = x + rs;
      const v = y + colShift[x]!;
      if (u < 0 || v < 0 || u >= W - 1 || v >= H - 1) continue;
      const ui = u | 0;
      const vi = v | 0;
      const fu = u - ui;
      const fv = v - vi;
      const i = vi * W + ui;
      out[y * W + x] = (src[i]! * (1 - fu) + src[i + 1]! * fu) * (1 - fv) + (src[i + W]! * (1 - fu) + src[i + W + 1]! * fu) * fv;
    }
  }
  return out;
}

/** Inverts the ink inside one ellipse over the text, so part of the text reads light-on-dark. */
function invertRegion(ink: Float32Array, rng: Rng): void {
  const cx = 40 + rng() * (W - 80);
  const cy = H / 2 + (rng() - 0.5) * 20;
  const rx = 12 + rng() * 8;
  const ry = 10 + rng() * 6;
  const x0 = Math.max(0, Math.floor(cx - rx));
  const x1 = Math.min(W - 1, Math.ceil(cx + rx));
  const y0 = Math.max(0, Math.floor(cy - ry));
  const y1 = Math.min(H - 1, Math.ceil(cy + ry));
  for (let y = y0; y <= y1; y++) {
    const ny = (y + 0.5 - cy) / ry;
    for (let x = x0; x <= x1; x++) {
      const nx = (x + 0.5 - cx) / rx;
      const d = nx * nx + ny * ny;
      if (d >= 1) continue;
      const o = y * W + x;
      ink[o] = 1 - ink[o]!;
    }
  }
}

/** Scattered dots, light and dark, of one or two pixels. */
function speckle(ink: Float32Array, rng: Rng): void {
  const count = 260 + Math.floor(rng() * 80);
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
      const c = ink[y * W + x]!;
      const g = bg * (1 - c) + inkLevel * c;
      grey[y * W + x] = g < 0 ? 0 : g > 255 ? 255 : g;
    }
  }
  return grey;
}

/**
 * Encodes a W x H 8-bit grey bitmap as PNG through jimp's encoder (pngjs), passing one byte per
 * pixel with `inputColorType: 0` so pngjs skips its RGBA conversion; SUB filter, deflate level 1.
 */
export async function encodePng(grey: Uint8Array, width = W, height = H): Promise<Buffer> {
  const image = Jimp.fromBitmap({ data: Buffer.from(grey.buffer, grey.byteOffset, grey.byteLength), width, height });
  return image.getBuffer('image/png', {
    colorType: 0,
    inputColorType: 0,
    inputHasAlpha: false,
    deflateLevel: 1,
    filterType: 1,
  });
}
