import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { subkey } from './subkeys.ts';
import type { Rng } from './render.ts';

/**
 * The browser-environment proof: each challenge carries a small layout, a tree of empty boxes
 * styled with flexbox, grid, percentages, aspect ratios, margins, padding and borders, that
 * the widget builds in a hidden shadow root and measures (widget/env-probes.ts): the position
 * and size of each marked box, rounded to whole CSS pixels.
 *
 * The server never computes those values. It takes them from a real engine: the service's own
 * Chromium lays out batches of fresh layouts in the background (engine-reference.ts), and each
 * challenge gets one, its measured values sealed into the work ticket with AES-256-GCM under a
 * key derived from TOKEN_KEY. The client sees the layout, not the values; the check compares
 * the client's values with the sealed ones, a pixel of tolerance each (engines round sub-pixel
 * layout differently). So an HTTP client cannot answer with anything in this repository: it
 * needs a CSS layout engine, a browser or an emulator of flexbox and grid written for the purpose.
 * Each layout is used by at most {@link MAX_PROBE_USES} challenges, so answers cannot be collected
 * once and replayed.
 *
 * No text is laid out (fonts differ between machines), nothing depends on the viewport, and
 * every length is a whole pixel or a percentage of one: what every current engine lays out the
 * same way. Where the service has no Chromium, challenges carry no layout and no token earns
 * the environment proof (risk.ts caps its score).
 */

/** One box: its inline style (the widget applies only the properties it knows: widget/env-probes.ts), children, and whether it is measured. */
export interface ProbeBox {
  s: Record<string, string>;
  c?: ProbeBox[];
  /** Measured: its left, top, width and height relative to the root box, in whole pixels. */
  m?: 1;
}

/** How many challenges may use one layout (and so see its values asked for). */
export const MAX_PROBE_USES = 2;
/** The tolerance of each value, in pixels. */
const TOLERANCE = 1;

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)];
const int = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));

/** A box with fixed lengths or a share of the row, sometimes an aspect ratio instead of a height. */
function item(rng: Rng, inGrid: boolean): ProbeBox {
  const s: Record<string, string> = { display: 'block', 'box-sizing': pick(rng, ['content-box', 'border-box']) };
  if (!inGrid) {
    const basis = rng() < 0.5 ? `${int(rng, 10, 120)}px` : `${pick(rng, [10, 20, 25, 30, 40, 50])}%`;
    s.flex = `${int(rng, 0, 3)} ${int(rng, 0, 2)} ${basis}`;
    if (rng() < 0.3) s['min-width'] = `${int(rng, 5, 60)}px`;
    if (rng() < 0.2) s['max-width'] = `${int(rng, 60, 160)}px`;
    if (rng() < 0.25) s['align-self'] = pick(rng, ['flex-start', 'center', 'flex-end', 'stretch']);
  } else if (rng() < 0.3) {
    s['grid-column'] = 'span 2';
  }
  if (rng() < 0.35) s['aspect-ratio'] = `${int(rng, 1, 4)} / ${int(rng, 1, 3)}`;
  else if (rng() < 0.8) s.height = `${int(rng, 4, 80)}px`;
  if (rng() < 0.6) s.padding = `${int(rng, 0, 9)}px ${int(rng, 0, 9)}px`;
  if (rng() < 0.5) s.border = `${int(rng, 1, 6)}px solid`;
  if (rng() < 0.5) s.margin = `${int(rng, 0, 8)}px ${pick(rng, ['auto', `${int(rng, 0, 8)}px`])}`;
  if (rng() < 0.15) s.order = String(int(rng, -1, 2));
  return { s, m: 1 };
}

/** A grid of fixed and flexible tracks with a few items, some spanning two tracks. */
function grid(rng: Rng): ProbeBox {
  const tracks = pick(rng, [
    `repeat(${int(rng, 2, 4)}, minmax(${int(rng, 8, 40)}px, 1fr))`,
    `${int(rng, 10, 50)}px ${int(rng, 1, 3)}fr ${int(rng, 1, 3)}fr`,
    `${int(rng, 1, 3)}fr ${int(rng, 20, 60)}px`,
  ]);
  const box: ProbeBox = {
    s: {
      display: 'grid',
      'grid-template-columns': tracks,
      gap: `${int(rng, 0, 8)}px ${int(rng, 0, 10)}px`,
      'grid-auto-rows': rng() < 0.5 ? `${int(rng, 8, 30)}px` : `minmax(${int(rng, 4, 20)}px, auto)`,
      flex: `1 1 ${int(rng, 60, 160)}px`,
      padding: `${int(rng, 0, 6)}px`,
    },
    c: [],
    m: 1,
  };
  for (let i = int(rng, 3, 6); i > 0; i--) box.c!.push(item(rng, true));
  return box;
}

/** A fresh layout: a wrapping flex row of a fixed width with boxes and a nested grid. */
export function generateProbe(rng: Rng): ProbeBox {
  const root: ProbeBox = {
    s: {
      display: 'flex',
      'flex-wrap': 'wrap',
      'flex-direction': pick(rng, ['row', 'row', 'row-reverse']),
      width: `${int(rng, 160, 420)}px`,
      padding: `${int(rng, 0, 12)}px`,
      border: `${int(rng, 0, 5)}px solid`,
      gap: `${int(rng, 0, 12)}px ${int(rng, 0, 12)}px`,
      'align-items': pick(rng, ['flex-start', 'center', 'flex-end', 'stretch']),
      'justify-content': pick(rng, ['flex-start', 'center', 'space-between', 'space-around', 'flex-end']),
    },
    c: [],
  };
  for (let i = int(rng, 2, 4); i > 0; i--) root.c!.push(item(rng, false));
  root.c!.splice(int(rng, 0, root.c!.length), 0, grid(rng));
  return root;
}

/** How many values a layout's measurement has: four per measured box. */
export function probeValueCount(box: ProbeBox): number {
  return (box.m ? 4 : 0) + (box.c ?? []).reduce((n, c) => n + probeValueCount(c), 0);
}

const sealKey = (tokenKey: Buffer) => subkey(tokenKey, 'env-proof');

/** The measured values, sealed for the ticket: nonce, AES-256-GCM of int16s, tag; base64url. */
export function sealValues(tokenKey: Buffer, values: readonly number[]): string {
  const plain = Buffer.alloc(values.length * 2);
  values.forEach((v, i) => plain.writeInt16BE(Math.max(-32768, Math.min(32767, v)), i * 2));
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealKey(tokenKey), nonce);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url');
}

/** The values a ticket sealed; undefined when they do not open under this key. */
export function openValues(tokenKey: Buffer, sealed: string): number[] | undefined {
  const raw = Buffer.from(sealed, 'base64url');
  if (raw.length < 28 || raw.length % 2 !== 0) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealKey(tokenKey), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    const plain = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
    const values: number[] = [];
    for (let i = 0; i < plain.length; i += 2) values.push(plain.readInt16BE(i));
    return values;
  } catch {
    return undefined;
  }
}

/** The answer as the widget sends it: the values joined by commas. */
export function formatAnswer(values: readonly number[]): string {
  return values.join(',');
}

const answerPattern = /^-?\d{1,5}(,-?\d{1,5}){0,255}$/;

/**
 * Whether `given` (the widget's answer) matches the values sealed in a ticket, each within a
 * pixel. A ticket without a layout (`sealed` null: no engine at issue) proves nothing.
 */
export function checkEnv(tokenKey: Buffer, sealed: string | null, given: unknown): boolean {
  if (sealed === null || typeof given !== 'string' || !answerPattern.test(given)) return false;
  const expected = openValues(tokenKey, sealed);
  if (!expected) return false;
  const values = given.split(',').map(Number);
  return values.length === expected.length && values.every((v, i) => Math.abs(v - expected[i]) <= TOLERANCE);
}
