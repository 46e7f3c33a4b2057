import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { subkey } from './subkeys.ts';
import type { Rng } from './render.ts';

/**
 * The browser-environment proof: each challenge carries a small paragraph that the widget lays
 * out in a hidden shadow root, in the proof's own font (shared/probe-font.ts, shipped inside
 * the widget), and measures (widget/env-probes.ts): the line each word lands on, as its top in
 * line heights. Random words at 30 or 40 px with a fixed line height, word spacing, an indent,
 * a case transform and an alignment, beside two floats and with inline blocks between its runs.
 *
 * Why text: the proof used to be a layout of empty flex and grid boxes, and box layout follows
 * the CSS specification so closely that a layout library from the registry (Taffy) answered
 * it without a browser, while Firefox disagreed with Chromium on a third of them. Lines of text
 * beside floats and inline blocks need an inline formatting context, which box libraries (Taffy,
 * Yoga) lack, and every engine lays them out alike (below). An engine that has one (Dropflow, a
 * CSS2 engine on the registry) answers them: docs/challenges.md says how well.
 *
 * The server never computes these values. It takes them from a real engine: the service's own
 * Chromium lays out batches of fresh paragraphs in the background (engine-reference.ts), and
 * each challenge gets one, its measured values sealed into the work ticket (or the image
 * challenge's state) with AES-256-GCM under a key derived from TOKEN_KEY. The client sees the
 * paragraph, not the values. Each paragraph goes to one challenge only ({@link MAX_PROBE_USES}),
 * so an answer seen once is worth nothing again.
 *
 * What every engine lays out the same way: nothing depends on the viewport or the system's
 * fonts; every length is a whole pixel; the font's advances are whole tenths of the em at font
 * sizes of whole tens of pixels, so every advance is a whole pixel (no kerning, ligatures or
 * hinting to round); no letter spacing (engines disagree about its trailing space); 30 px and
 * more, above any minimum font size a person sets. The reference engine also lays each
 * paragraph out 3 px narrower and wider, marking a word whose line changes {@link UNCHECKED},
 * and keeps only paragraphs with none (engine-reference.ts). Lines are counted by their distances
 * from one another in line heights, so font metrics that place the text a pixel higher in one
 * engine move every line alike. Where the service has no Chromium,
 * challenges carry no paragraph and no token earns the environment proof (risk.ts caps its score).
 */

/** One box of the paragraph: its inline style (the widget applies only the properties it knows: widget/env-probes.ts) and children. */
export interface ProbeBox {
  s: Record<string, string>;
  c?: ProbeBox[];
  /** A run of text: lower-case words separated by single spaces, each measured by the line it lands on. */
  t?: string;
}

/** How many challenges may use one paragraph (and so see its values asked for). */
export const MAX_PROBE_USES = 1;
/** A value the reference found unstable: not checked. */
export const UNCHECKED = -1;

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)];
const int = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Lower-case words of 2 to 9 letters, single spaces between them. */
function words(rng: Rng, n: number): string {
  return Array.from({ length: n }, () =>
    Array.from({ length: int(rng, 2, 9) }, () => LETTERS[Math.floor(rng() * LETTERS.length)]).join(''),
  ).join(' ');
}

/**
 * A fresh paragraph: a float at its start and another after one of its runs of words (each a
 * quarter to nearly half the paragraph wide, two to five lines tall, left or right), inline
 * blocks between the other runs, in the proof's font at 30 or 40 px with a fixed line height.
 * The floats are what a box layout library cannot do: a wrapping flex row of words lays out a
 * paragraph without them.
 */
export function generateText(rng: Rng): ProbeBox {
  const size = pick(rng, [30, 40]);
  const lineHeight = size + pick(rng, [10, 20]);
  const root: ProbeBox = {
    s: {
      display: 'block',
      'font-size': `${size}px`,
      'line-height': `${lineHeight}px`,
      'word-spacing': `${int(rng, 0, 6)}px`,
      'text-indent': `${int(rng, 0, 40)}px`,
      'text-transform': pick(rng, ['none', 'none', 'uppercase', 'capitalize']),
      'text-align': pick(rng, ['left', 'right', 'center', 'justify']),
    },
    c: [],
  };
  const width = int(rng, 240, 440);
  root.s.width = `${width}px`;
  const float = (side: string): ProbeBox => ({
    s: {
      display: 'block',
      float: side,
      width: `${int(rng, Math.round(width * 0.3), Math.round(width * 0.5))}px`,
      height: `${int(rng, 3 * lineHeight, 6 * lineHeight)}px`,
      margin: `${int(rng, 0, 8)}px`,
    },
  });
  root.c!.push(float(pick(rng, ['left', 'right'])));
  const runs = int(rng, 4, 6);
  // A second float after one of the runs, where the text has got to.
  const floatAfter = int(rng, 1, runs - 1);
  for (let run = 1; run <= runs; run++) {
    root.c!.push({ s: {}, t: words(rng, int(rng, 6, 12)) });
    if (run === floatAfter) root.c!.push(float(pick(rng, ['left', 'right'])));
    else if (run < runs && rng() < 0.7) {
      const width = int(rng, 10, 90);
      const height = int(rng, 4, lineHeight);
      // The margin below makes the box a line height tall, as tall as the line it sits on: a
      // line holding nothing but this box is then one line height in a quirks-mode page too,
      // where such a line is only as tall as its boxes (in standards mode it has the
      // paragraph's line height anyway, so no line moves there).
      root.c!.push({
        s: {
          display: 'inline-block',
          width: `${width}px`,
          height: `${height}px`,
          'vertical-align': 'top',
          margin: `0px ${int(rng, 0, 8)}px ${lineHeight - height}px`,
        },
      });
    }
  }
  return root;
}

/** How many values a paragraph's measurement has: one per word. */
export function textValueCount(box: ProbeBox): number {
  return (box.t ? box.t.split(' ').length : 0) + (box.c ?? []).reduce((n, c) => n + textValueCount(c), 0);
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

const answerPattern = /^-?\d{1,5}(,-?\d{1,5}){0,255}$/;

/**
 * Whether `given` (the widget's answer) matches the values sealed in a ticket: each checked
 * word on its line exactly. A ticket without a paragraph (`sealed` null: no engine at issue)
 * proves nothing, nor does one the reference could check no word of.
 */
export function checkEnv(tokenKey: Buffer, sealed: string | null, given: unknown): boolean {
  if (sealed === null || typeof given !== 'string' || !answerPattern.test(given)) return false;
  const expected = openValues(tokenKey, sealed);
  if (!expected || expected.every((v) => v === UNCHECKED)) return false;
  const values = given.split(',').map(Number);
  return values.length === expected.length && values.every((v, i) => expected[i] === UNCHECKED || v === expected[i]);
}
