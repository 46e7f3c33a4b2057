/**
 * A layout-library attacker with an inline formatting context: Dropflow (the `dropflow` npm
 * package, a CSS2 engine in JavaScript with HarfBuzz in WebAssembly: blocks, inlines, inline
 * blocks, floats, line breaking; no flex, no grid). It lays the paragraph out as the widget
 * builds it (each word a span, a space between items, the floats and inline blocks as styled)
 * in the proof's own font from the widget's bytes.
 *
 * What Dropflow lacks, the bot makes up: `text-transform` by writing the words transformed;
 * `word-spacing` by a copy of the font whose space is wider by that much; `text-indent` by a
 * left margin on the first word (an inline's margin stays with its text, as the indent does).
 * `text-align: justify`, which it lacks too, moves no word to another line.
 */
import * as flow from 'dropflow';
import type { ProbeBox } from '../../src/captcha/env-proof.ts';
import { linesOf, num, PROBE_FONT, PROBE_FONT_METRICS, transformed, type LayoutBot } from './layout-bot.ts';

/** The proof's font with its space `extra` font units wider (the space glyph's advance in hmtx). */
function withWiderSpace(extra: number): ArrayBuffer {
  const bytes = PROBE_FONT.slice(0);
  const view = new DataView(bytes);
  const tables = new Map<string, number>();
  for (let i = 0, n = view.getUint16(4); i < n; i++) {
    const record = 12 + 16 * i;
    tables.set(String.fromCharCode(...new Uint8Array(bytes, record, 4)), view.getUint32(record + 8));
  }
  const { spaceGlyph } = PROBE_FONT_METRICS;
  if (spaceGlyph >= view.getUint16(tables.get('hhea')! + 34)) throw new Error('space glyph without its own advance');
  const at = tables.get('hmtx')! + 4 * spaceGlyph;
  view.setUint16(at, view.getUint16(at) + extra);
  return bytes;
}

const families = new Map<string, string>();

/** A family for the proof's font at `size` px with `spacing` px of word spacing, registered once. */
function family(size: number, spacing: number): string {
  const extra = Math.round((spacing * PROBE_FONT_METRICS.unitsPerEm) / size);
  const key = String(extra);
  let name = families.get(key);
  if (!name) {
    name = `Probe${extra}`;
    flow.fonts.add(new flow.FontFace(name, extra ? withWiderSpace(extra) : PROBE_FONT));
    families.set(key, name);
  }
  return name;
}

/** The line of each word of a paragraph, as Dropflow lays it out. */
export function paragraphWithDropflow(probe: ProbeBox): number[] {
  const s = probe.s;
  const size = num(s['font-size']);
  const lineHeight = num(s['line-height']);
  const align = s['text-align'];
  const root: (flow.HTMLElement | string)[] = [];
  const words: string[] = [];
  let first = true;
  for (const child of probe.c ?? []) {
    if (child.t !== undefined) {
      for (const word of child.t.split(' ')) {
        const text = transformed(word, s['text-transform']);
        const style = first ? flow.style({ marginLeft: num(s['text-indent']) }) : undefined;
        first = false;
        words.push(text);
        root.push(flow.h('span', style ? { style } : {}, [text]), ' ');
      }
      continue;
    }
    const [vertical, horizontal = vertical] = (child.s.margin ?? '0').trim().split(/\s+/).map(num);
    const floated = child.s.float === 'left' || child.s.float === 'right' ? child.s.float : 'none';
    const style = flow.style({
      display:
        child.s.display === 'inline-block'
          ? { outer: 'inline', inner: 'flow-root' }
          : { outer: 'block', inner: 'flow' },
      float: floated,
      width: num(child.s.width),
      height: num(child.s.height),
      marginTop: vertical,
      marginBottom: vertical,
      marginLeft: horizontal,
      marginRight: horizontal,
      ...(child.s['vertical-align'] === 'top' ? { verticalAlign: 'top' as const } : {}),
    });
    root.push(flow.h('div', { style }), ' ');
  }
  const paragraph = flow.h(
    'div',
    {
      style: flow.style({
        width: num(s.width),
        fontSize: size,
        lineHeight,
        fontFamily: [family(size, num(s['word-spacing']))],
        textAlign: align === 'right' || align === 'center' ? align : 'left',
        whiteSpace: 'normal',
      }),
    },
    root,
  );
  const document = flow.dom(paragraph);
  flow.loadSync(document);
  const container = flow.generate(document);
  flow.layout(container, 10_000, 10_000);
  // The paragraph's one inline formatting context: its text, and the line boxes over it.
  const block = paragraph.boxes[0] as unknown as { children: { paragraph?: DropflowParagraph }[] };
  const text = block.children.find((c) => c.paragraph)?.paragraph;
  if (!text) throw new Error('no paragraph laid out');
  let at = 0;
  const tops = words.map((word) => {
    const offset = text.string.indexOf(word, at);
    at = offset + word.length;
    const line = text.lineboxes.find((l) => offset >= l.startOffset && offset < l.endOffset);
    return line?.blockOffset ?? 0;
  });
  return linesOf(tops, lineHeight);
}

/** The part of Dropflow's paragraph (layout-text.ts) the bot reads: its text and line boxes. */
interface DropflowParagraph {
  string: string;
  lineboxes: { startOffset: number; endOffset: number; blockOffset: number }[];
}

/** Dropflow as an attacker: no flex or grid for the former boxes; the paragraph as CSS lays it out. */
export const dropflowBot: LayoutBot = { name: 'Dropflow', paragraph: paragraphWithDropflow };
