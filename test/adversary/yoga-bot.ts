/**
 * A second layout-library attacker: Yoga (the `yoga-layout` npm package, Meta's flexbox engine
 * in WebAssembly, the one React Native lays out with). It has flexbox and nothing else: no
 * grid, no block flow, no inline formatting context.
 *
 * `layoutWithYoga` answers the former box proof (box-layouts.ts): the flex row in Yoga, with
 * web defaults and no pixel rounding; the grid inside it, which Yoga cannot lay out, by the
 * bot's own track sizing (fixed, fr and minmax columns, auto-placed items spanning one or two,
 * fixed or minmax(…, auto) rows, stretched items, aspect ratios), the grid a Yoga leaf whose
 * height that sizing measures. Aspect ratios of flex items are applied as the Taffy bot does,
 * in a second pass from the flexed width, so `box-sizing` counts as a browser counts it.
 *
 * `paragraphWithYoga` answers today's paragraph as the Taffy bot does: a wrapping flex row of
 * words sized from the proof's font (layout-bot.ts), the indent a leading box; floats left out.
 */
import Yoga, {
  Align,
  BoxSizing,
  Edge,
  FlexDirection,
  Gutter,
  Justify,
  MeasureMode,
  Wrap,
  type Node,
} from 'yoga-layout';
import type { ProbeBox } from '../../src/captcha/env-proof.ts';
import type { BoxLayout } from './box-layouts.ts';
import { borderWidth, linesOf, num, paragraphRow, px, ratioOf, sides, topLevel, type LayoutBot } from './layout-bot.ts';

const config = Yoga.Config.create();
config.setUseWebDefaults(true);
config.setPointScaleFactor(0);

const aligns: Record<string, Align> = {
  'flex-start': Align.FlexStart,
  start: Align.FlexStart,
  'flex-end': Align.FlexEnd,
  end: Align.FlexEnd,
  center: Align.Center,
  stretch: Align.Stretch,
  baseline: Align.Baseline,
  auto: Align.Auto,
};
const justifies: Record<string, Justify> = {
  'flex-start': Justify.FlexStart,
  start: Justify.FlexStart,
  'flex-end': Justify.FlexEnd,
  end: Justify.FlexEnd,
  center: Justify.Center,
  'space-between': Justify.SpaceBetween,
  'space-around': Justify.SpaceAround,
  'space-evenly': Justify.SpaceEvenly,
};
const directions: Record<string, FlexDirection> = {
  row: FlexDirection.Row,
  'row-reverse': FlexDirection.RowReverse,
  column: FlexDirection.Column,
  'column-reverse': FlexDirection.ColumnReverse,
};
const EDGES = [Edge.Top, Edge.Right, Edge.Bottom, Edge.Left] as const;

type Length = number | `${number}%`;
const length = (v: string): Length => (v.trim().endsWith('%') ? `${Number.parseFloat(v)}%` : (px(v) ?? 0));

/** A box's padding and border on each side, and its margins (`auto` where CSS says so). */
function edges(s: Record<string, string>) {
  const padding = sides(s.padding ?? '0', (v) => px(v) ?? 0);
  const border = s.border ? borderWidth(s.border) : 0;
  const margin = sides(s.margin ?? '0', (v) => (v === 'auto' ? ('auto' as const) : (px(v) ?? 0)));
  return {
    padding,
    border,
    margin,
    inline: padding.left + padding.right + 2 * border,
    block: padding.top + padding.bottom + 2 * border,
  };
}

/** The Yoga style of one box: CSS's initial values (web defaults), then each property it sets. */
function styleNode(node: Node, s: Record<string, string>): void {
  const e = edges(s);
  node.setBoxSizing(s['box-sizing'] === 'border-box' ? BoxSizing.BorderBox : BoxSizing.ContentBox);
  node.setFlexShrink(1);
  node.setFlexGrow(0);
  node.setAlignContent(Align.Stretch);
  for (const [i, edge] of EDGES.entries()) {
    const side = (['top', 'right', 'bottom', 'left'] as const)[i];
    node.setPadding(edge, e.padding[side]);
    node.setBorder(edge, e.border);
    const m = e.margin[side];
    if (m === 'auto') node.setMarginAuto(edge);
    else node.setMargin(edge, m);
  }
  if (s.width) node.setWidth(length(s.width));
  if (s.height) node.setHeight(length(s.height));
  if (s['min-width']) node.setMinWidth(length(s['min-width']));
  if (s['max-width']) node.setMaxWidth(length(s['max-width']));
  if (s.display === 'flex') {
    node.setFlexDirection(directions[s['flex-direction'] ?? 'row'] ?? FlexDirection.Row);
    node.setFlexWrap(
      s['flex-wrap'] === 'wrap' ? Wrap.Wrap : s['flex-wrap'] === 'wrap-reverse' ? Wrap.WrapReverse : Wrap.NoWrap,
    );
    node.setAlignItems(aligns[s['align-items'] ?? 'stretch'] ?? Align.Stretch);
    node.setJustifyContent(justifies[s['justify-content'] ?? 'flex-start'] ?? Justify.FlexStart);
  }
  if (s.gap) {
    const [row, column = row] = s.gap.trim().split(/\s+/);
    node.setGap(Gutter.Row, length(row));
    node.setGap(Gutter.Column, length(column));
  }
  if (s['align-self']) node.setAlignSelf(aligns[s['align-self']] ?? Align.Auto);
  if (s.flex) {
    const parts = s.flex.trim().split(/\s+/);
    if (parts[0] === 'none') {
      node.setFlexShrink(0);
      node.setFlexBasisAuto();
    } else if (parts[0] === 'auto') {
      node.setFlexGrow(1);
      node.setFlexBasisAuto();
    } else {
      node.setFlexGrow(Number(parts[0]));
      node.setFlexShrink(parts[1] !== undefined && /^[\d.]+$/.test(parts[1]) ? Number(parts[1]) : 1);
      const basis = parts.find((p, i) => i > 0 && !/^[\d.]+$/.test(p));
      node.setFlexBasis(basis ? length(basis) : 0);
    }
  }
}

/** One grid column: a fixed size, or a minimum (a length, or `auto`: the items') and a share of the rest. */
type Track = { min: number | 'auto'; fr?: number };

function track(v: string): Track {
  const t = v.trim();
  const minmax = /^minmax\((.*)\)$/.exec(t);
  if (minmax) {
    const [lo, hi] = topLevel(minmax[1], /,/);
    const min = track(lo).min;
    return hi.trim().endsWith('fr')
      ? { min, fr: Number.parseFloat(hi) }
      : { min: Math.max(px(hi) ?? 0, min === 'auto' ? 0 : min) };
  }
  if (t.endsWith('fr')) return { min: 'auto', fr: Number.parseFloat(t) };
  if (t === 'auto' || t.endsWith('content')) return { min: 'auto', fr: 0 };
  return { min: px(t) ?? 0 };
}

function tracks(v: string): Track[] {
  return topLevel(v, /\s/).flatMap((part) => {
    const rep = /^repeat\((.*)\)$/.exec(part);
    if (!rep) return [track(part)];
    const [count, ...rest] = topLevel(rep[1], /,/);
    const each = topLevel(rest.join(','), /\s/).map(track);
    return Array.from({ length: Number(count) || 1 }, () => each).flat();
  });
}

type Rect = { x: number; y: number; w: number; h: number };

/**
 * The bot's own grid: each item's border box in the grid's content box, and the rows' height,
 * for a content box `width` wide (and `height` tall, once the flex row has stretched it).
 */
function layoutGrid(grid: BoxLayout, width: number, height?: number): { height: number; items: Rect[] } {
  const s = grid.s;
  const cols = tracks(s['grid-template-columns'] ?? 'none');
  const [rowGapV, colGapV = rowGapV] = (s.gap ?? '0').trim().split(/\s+/);
  const rowGap = px(rowGapV) ?? 0;
  const colGap = px(colGapV) ?? 0;
  const kids = (grid.c ?? []).map((c, i) => ({ c, i, order: Number(c.s.order ?? 0) || 0 }));
  kids.sort((a, b) => a.order - b.order || a.i - b.i);
  // Sparse auto-placement, row by row.
  const placed: { c: BoxLayout; i: number; row: number; col: number; span: number }[] = [];
  let row = 0;
  let col = 0;
  for (const { c, i } of kids) {
    const span = Math.min(cols.length, Number(/^span\s+(\d+)$/.exec(c.s['grid-column'] ?? '')?.[1] ?? 1));
    if (col + span > cols.length) {
      row++;
      col = 0;
    }
    placed.push({ c, i, row, col, span });
    col += span;
  }
  const rows = placed.length ? row + 1 : 0;
  // Columns: each minimum (auto: the widest single-column item's padding, border and margins), then the fr shares.
  const base = cols.map((t, k) =>
    t.min !== 'auto'
      ? t.min
      : Math.max(
          0,
          ...placed
            .filter((p) => p.col === k && p.span === 1)
            .map((p) => {
              const e = edges(p.c.s);
              const m = (v: number | 'auto') => (v === 'auto' ? 0 : v);
              return e.inline + m(e.margin.left) + m(e.margin.right);
            }),
        ),
  );
  const sizes = [...base];
  const free = width - colGap * (cols.length - 1);
  let flexible = cols.map((t) => (t.fr ?? 0) > 0);
  for (let pass = 0; pass < cols.length; pass++) {
    const fixed = sizes.reduce((sum, v, k) => sum + (flexible[k] ? 0 : base[k]), 0);
    const fr = cols.reduce((sum, t, k) => sum + (flexible[k] ? t.fr! : 0), 0);
    const unit = fr > 0 ? Math.max(0, free - fixed) / Math.max(1, fr) : 0;
    const next = flexible.map((f, k) => f && cols[k].fr! * unit >= base[k]);
    for (let k = 0; k < cols.length; k++) sizes[k] = next[k] ? cols[k].fr! * unit : base[k];
    if (next.every((f, k) => f === flexible[k])) break;
    flexible = next;
  }
  const left = (k: number) => sizes.slice(0, k).reduce((a, b) => a + b, 0) + colGap * k;
  const areaWidth = (p: { col: number; span: number }) => left(p.col + p.span) - left(p.col) - colGap;
  // Each item's width and natural height in its column.
  const autoRows = s['grid-auto-rows'] ?? 'auto';
  const fixedRow = px(autoRows);
  const minRow = px(/^minmax\(([^,]+),/.exec(autoRows)?.[1] ?? '') ?? 0;
  const boxes = placed.map((p) => {
    const e = edges(p.c.s);
    const cs = p.c.s;
    const border = cs['box-sizing'] === 'border-box';
    const mv = (e.margin.top === 'auto' ? 0 : e.margin.top) + (e.margin.bottom === 'auto' ? 0 : e.margin.bottom);
    const autoInline = e.margin.left === 'auto' || e.margin.right === 'auto';
    const mh = (e.margin.left === 'auto' ? 0 : e.margin.left) + (e.margin.right === 'auto' ? 0 : e.margin.right);
    const ratio = cs['aspect-ratio'] ? ratioOf(cs['aspect-ratio']) : undefined;
    const fromWidth = (w: number) =>
      ratio === undefined ? undefined : border ? Math.max(e.block, w / ratio) : (w - e.inline) / ratio + e.block;
    let w: number;
    let h: number | undefined;
    if (autoInline && ratio !== undefined && fixedRow !== undefined) {
      h = Math.max(e.block, fixedRow - mv);
      w = border ? Math.max(e.inline, h * ratio) : (h - e.block) * ratio + e.inline;
    } else {
      w = autoInline ? e.inline : Math.max(e.inline, areaWidth(p) - mh);
      h = cs.height ? (border ? Math.max(e.block, num(cs.height)) : num(cs.height) + e.block) : fromWidth(w);
    }
    return { p, e, w, h, mv, ratio };
  });
  const rowSizes = Array.from({ length: rows }, (_, r) =>
    fixedRow !== undefined
      ? fixedRow
      : Math.max(minRow, ...boxes.filter((b) => b.p.row === r).map((b) => (b.h ?? b.e.block) + b.mv)),
  );
  const natural = rowSizes.reduce((a, b) => a + b, 0) + rowGap * Math.max(0, rows - 1);
  // A grid stretched taller than its rows shares the rest among its auto rows.
  if (height !== undefined && height > natural && fixedRow === undefined && rows) {
    for (let r = 0; r < rows; r++) rowSizes[r] += (height - natural) / rows;
  }
  const top = (r: number) => rowSizes.slice(0, r).reduce((a, b) => a + b, 0) + rowGap * r;
  const items: Rect[] = [];
  for (const b of boxes) {
    const mt = b.e.margin.top === 'auto' ? 0 : b.e.margin.top;
    const ml = b.e.margin.left === 'auto' ? (areaWidth(b.p) - b.w) / 2 : b.e.margin.left;
    const h = b.h ?? Math.max(b.e.block, rowSizes[b.p.row] - b.mv);
    items[b.p.i] = { x: left(b.p.col) + Math.max(0, ml), y: top(b.p.row) + mt, w: b.w, h };
  }
  return { height: natural, items };
}

/**
 * The values `measureProbe` would return for a former box layout, computed by Yoga (and the
 * bot's grid): for each marked box in document order, its left, top, width and height
 * relative to the root box, rounded.
 */
export function layoutWithYoga(probe: BoxLayout): number[] {
  const nodes: Node[] = [];
  const grids: { node: Node; box: BoxLayout }[] = [];
  const ratios: { node: Node; box: BoxLayout; stretch: boolean }[] = [];
  const own = new Map<BoxLayout, Node>();
  const build = (box: BoxLayout, parent?: BoxLayout): Node => {
    const node = Yoga.Node.create(config);
    nodes.push(node);
    own.set(box, node);
    styleNode(node, box.s);
    if (parent && box.s['aspect-ratio'] && !box.s.height) {
      const align =
        box.s['align-self'] && box.s['align-self'] !== 'auto'
          ? box.s['align-self']
          : (parent.s['align-items'] ?? 'stretch');
      const autoCross = /auto/.test((box.s.margin ?? '').split(/\s+/)[0] ?? '');
      ratios.push({ node, box, stretch: align === 'stretch' && !autoCross });
    }
    if (box.s.display === 'grid') {
      grids.push({ node, box });
      node.setMeasureFunc((width, mode) => {
        const w = mode === MeasureMode.Undefined ? 0 : width;
        return { width: w, height: layoutGrid(box, w).height };
      });
      return node;
    }
    const kids = (box.c ?? []).map((c, i) => ({ c, i, order: Number(c.s.order ?? 0) || 0 }));
    kids.sort((a, b) => a.order - b.order || a.i - b.i);
    for (const [at, { c }] of kids.entries()) node.insertChild(build(c, box), at);
    return node;
  };
  try {
    const root = build(probe);
    root.calculateLayout(undefined, undefined);
    // Flex items with an aspect ratio: the height a browser derives from the flexed width, made explicit.
    for (let pass = 0; pass < 3 && ratios.length; pass++) {
      for (const { node, box, stretch } of ratios) {
        const e = edges(box.s);
        const w = node.getComputedWidth();
        const ratio = ratioOf(box.s['aspect-ratio']);
        const h =
          box.s['box-sizing'] === 'border-box' ? Math.max(e.block, w / ratio) : (w - e.inline) / ratio + e.block;
        if (stretch) node.setMinHeight(h);
        else node.setHeight(h);
        if (box.s['min-width'] === undefined) node.setMinWidth(0);
      }
      root.calculateLayout(undefined, undefined);
    }
    const place = new Map<BoxLayout, Rect>();
    const walk = (box: BoxLayout, x: number, y: number, isRoot: boolean) => {
      const node = own.get(box)!;
      const l = node.getComputedLayout();
      const here = { x: isRoot ? 0 : x + l.left, y: isRoot ? 0 : y + l.top, w: l.width, h: l.height };
      place.set(box, here);
      if (box.s.display === 'grid') {
        const e = edges(box.s);
        const inner = { x: here.x + e.border + e.padding.left, y: here.y + e.border + e.padding.top };
        const grid = layoutGrid(box, l.width - e.inline, l.height - e.block);
        (box.c ?? []).forEach((c, i) => {
          const r = grid.items[i];
          place.set(c, { x: inner.x + r.x, y: inner.y + r.y, w: r.w, h: r.h });
        });
        return;
      }
      for (const c of box.c ?? []) walk(c, here.x, here.y, false);
    };
    walk(probe, 0, 0, true);
    const values: number[] = [];
    const collect = (box: BoxLayout) => {
      if (box.m) {
        const r = place.get(box)!;
        values.push(Math.round(r.x), Math.round(r.y), Math.round(r.w), Math.round(r.h));
      }
      for (const c of box.c ?? []) collect(c);
    };
    collect(probe);
    return values;
  } finally {
    for (const { node } of grids) node.unsetMeasureFunc();
    nodes[0]?.freeRecursive();
  }
}

/**
 * The line of each word of a paragraph, as Yoga lays it out: a flex row that wraps, a word
 * spacing's gap between items, the indent a leading box; floats left out.
 */
export function paragraphWithYoga(probe: ProbeBox): number[] {
  const { width, lineHeight, gap, indent, items } = paragraphRow(probe);
  const row = Yoga.Node.create(config);
  try {
    row.setFlexDirection(FlexDirection.Row);
    row.setFlexWrap(Wrap.Wrap);
    row.setAlignItems(Align.FlexStart);
    row.setAlignContent(Align.FlexStart);
    row.setWidth(width);
    row.setGap(Gutter.Column, gap);
    const leaf = (w: number, h: number): Node => {
      const node = Yoga.Node.create(config);
      node.setWidth(w);
      node.setHeight(h);
      node.setFlexShrink(0);
      row.insertChild(node, row.getChildCount());
      return node;
    };
    leaf(indent, 0);
    const words = items.map((item) => ({ item, node: leaf(item.width, lineHeight) }));
    row.calculateLayout(width, undefined);
    const tops = words.filter((w) => w.item.kind === 'word').map((w) => w.node.getComputedTop());
    return linesOf(tops, lineHeight);
  } finally {
    row.freeRecursive();
  }
}

/** Yoga as an attacker: flexbox (and its own grid) for the former boxes, a wrapping flex row for the paragraph. */
export const yogaBot: LayoutBot = { name: 'Yoga', boxes: layoutWithYoga, paragraph: paragraphWithYoga };
