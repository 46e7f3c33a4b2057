/**
 * What every layout-library attacker shares, whatever engine it drives: the proof's font read
 * from the widget's own bytes (as a bot that read our source would), each word's advance in
 * it, the paragraph cut into the items an engine lays out, the widget's way of turning word
 * tops into lines, the probe's inline CSS read as numbers, and the answer the HTTP bot sends.
 * Each engine's adapter (taffy-bot.ts, yoga-bot.ts, dropflow-bot.ts) is only the part that
 * drives its engine.
 */
import type { ProbeBox } from '../../src/captcha/env-proof.ts';
import { PROBE_FONT_BASE64 } from '../../shared/probe-font.ts';
import type { LayoutAnswer } from '../helpers/http-bot.ts';
import type { BoxLayout } from './box-layouts.ts';
import opentype from 'opentype.js';

/** A layout-library attacker: the former box proof (if its engine does flex and grid) and today's paragraphs. */
export interface LayoutBot {
  name: string;
  /** The values the widget measured for a former box layout: left, top, width, height of each marked box. */
  boxes?: (layout: BoxLayout) => number[];
  /** The line of each word of a paragraph, as the widget answers it. */
  paragraph: (probe: ProbeBox) => number[];
}

/** The HTTP bot's answer: the bot's lines, or none when the challenge carries no paragraph. */
export const answerWith =
  (bot: LayoutBot): LayoutAnswer =>
  (probe) =>
    probe ? bot.paragraph(probe).join(',') : undefined;

/** A probe box as the bot sees it: the fields it knows, and whatever text a newer probe adds. */
export type AnyBox = BoxLayout & { t?: unknown };

/** `12px` (or `0`) as a number; undefined for anything else. */
export const px = (v: string): number | undefined => {
  const m = /^(-?\d+(?:\.\d+)?)px$/.exec(v.trim());
  return m ? Number(m[1]) : v.trim() === '0' ? 0 : undefined;
};

/** A length's number of pixels, 0 when absent. */
export const num = (v: string | undefined): number => Number.parseFloat(v ?? '0') || 0;

/** CSS's one-to-four-value box shorthand: top, right, bottom, left. */
export function sides<T>(v: string, each: (s: string) => T): { top: T; right: T; bottom: T; left: T } {
  const p = v.trim().split(/\s+/).map(each);
  const [top, right = top, bottom = top, left = right] = p;
  return { top, right, bottom, left };
}

/** `border: 3px solid` (the width, if it names one; `solid` alone is CSS's medium, 3px). */
export function borderWidth(v: string): number {
  const parts = v.trim().split(/\s+/);
  const width = parts.map(px).find((n) => n !== undefined);
  if (width !== undefined) return width;
  return parts.includes('none') || parts.includes('hidden') || !parts.some((p) => /solid|dashed|dotted|double/.test(p))
    ? 0
    : 3;
}

/** Splits a list at top-level separators (not inside parentheses). */
export function topLevel(v: string, sep: RegExp): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of v.trim()) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (depth === 0 && sep.test(ch)) {
      if (cur.trim()) out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** `aspect-ratio: 4 / 3` as a number. */
export function ratioOf(v: string): number {
  const [w, h = 1] = v.split('/').map((x) => Number(x.trim()));
  return w / h;
}

/** The proof's font: the bytes the widget ships (a copy of its own: a small Buffer's .buffer is the pool it was cut from). */
export const PROBE_FONT: ArrayBuffer = new Uint8Array(Buffer.from(PROBE_FONT_BASE64, 'base64')).buffer;

const font = opentype.parse(PROBE_FONT);

/** The font's units per em, and the glyph a space is drawn with. */
export const PROBE_FONT_METRICS = { unitsPerEm: font.unitsPerEm, spaceGlyph: font.charToGlyph(' ').index };

/** A word as the paragraph's `text-transform` writes it. */
export function transformed(word: string, transform: string | undefined): string {
  if (transform === 'uppercase') return word.toUpperCase();
  if (transform === 'capitalize') return word.charAt(0).toUpperCase() + word.slice(1);
  return word;
}

/** A text's advance in the proof's font at `size` px. */
export function textWidth(text: string, size: number): number {
  return [...text].reduce((w, ch) => w + (font.charToGlyph(ch).advanceWidth * size) / font.unitsPerEm, 0);
}

/** One thing a paragraph lays out in its line, in document order. */
export type RowItem = { kind: 'word'; width: number } | { kind: 'inline-block'; width: number };

/**
 * A paragraph as a box layout library can take it: its width, line height, the advance
 * between words (a space and the word spacing), the indent, and its words and inline blocks
 * (each with its horizontal margins) in order. Floats are not items: an engine without an
 * inline formatting context has nowhere to put them.
 */
export function paragraphRow(probe: ProbeBox): {
  width: number;
  lineHeight: number;
  gap: number;
  indent: number;
  items: RowItem[];
} {
  const size = num(probe.s['font-size']);
  const items: RowItem[] = [];
  for (const child of probe.c ?? []) {
    if (child.t !== undefined) {
      for (const word of child.t.split(' ')) {
        items.push({ kind: 'word', width: textWidth(transformed(word, probe.s['text-transform']), size) });
      }
    } else if (child.s.display === 'inline-block') {
      const margin = (child.s.margin ?? '0 0').split(/\s+/).map(num);
      items.push({ kind: 'inline-block', width: num(child.s.width) + 2 * (margin[1] ?? margin[0]) });
    }
  }
  return {
    width: num(probe.s.width),
    lineHeight: num(probe.s['line-height']),
    gap: textWidth(' ', size) + num(probe.s['word-spacing']),
    indent: num(probe.s['text-indent']),
    items,
  };
}

/**
 * The widget's lines (env-probes.ts measureNow) from each word's top: 0 for the first line,
 * each next distinct top its distance from the one before in line heights, rounded, at least 1.
 */
export function linesOf(tops: number[], lineHeight: number): number[] {
  const rounded = tops.map(Math.round);
  const distinct = [...new Set(rounded)].sort((a, b) => a - b);
  const lineOf = new Map<number, number>();
  distinct.forEach((top, i) => {
    const line =
      i === 0 ? 0 : lineOf.get(distinct[i - 1])! + Math.max(1, Math.round((top - distinct[i - 1]) / lineHeight));
    lineOf.set(top, line);
  });
  return rounded.map((top) => lineOf.get(top)!);
}
