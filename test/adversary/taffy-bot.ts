/**
 * The red team's layout-library attacker, laid out without a browser by Taffy (the
 * `taffy-layout` npm package: Taffy's flexbox, grid and block layout in WebAssembly).
 *
 * `paragraphWithTaffy` answers today's environment proof (src/captcha/env-proof.ts) as well as
 * Taffy can: the paragraph as a wrapping flex row of words sized from the font the widget
 * ships (layout-bot.ts, shared with the other engines' bots), inline blocks as boxes, the
 * indent as a leading box; floats, which Taffy does not have, left out.
 *
 * `layoutWithTaffy` answers the proof as it was, a layout of flex and grid boxes
 * (box-layouts.ts), with what the widget measured: left, top, width and height of each marked
 * box relative to the root's border box, rounded.
 *
 * It reads the probe's inline styles as CSS would (shorthands, px, %, fr, minmax, repeat, auto
 * margins, `order`, which Taffy lacks, by sorting the children first). What Taffy cannot lay
 * out (text, floats, inline boxes: any box with a `t` field or a display it does not know) gets
 * the bot's best guess: a leaf sized by a crude text estimate. The answer always has the length
 * the server expects, so a wrong answer is wrong by its values, never by its shape.
 */
import {
  AlignItems,
  AlignSelf,
  BoxSizing,
  Display,
  FlexDirection,
  FlexWrap,
  JustifyContent,
  loadTaffy,
  Style,
  TaffyTree,
  type Dimension,
  type GridTemplateComponent,
  type LengthPercentage,
  type LengthPercentageAuto,
  type TrackSizingFunction,
} from 'taffy-layout';
import type { ProbeBox } from '../../src/captcha/env-proof.ts';
import type { BoxLayout } from './box-layouts.ts';
import {
  borderWidth,
  linesOf,
  paragraphRow,
  px,
  ratioOf,
  sides,
  topLevel,
  type AnyBox,
  type LayoutBot,
} from './layout-bot.ts';

await loadTaffy();

function lengthPercentage(v: string): LengthPercentage {
  const t = v.trim();
  if (t.endsWith('%')) return `${Number(t.slice(0, -1))}%`;
  return px(t) ?? 0;
}

function lengthAuto(v: string): LengthPercentageAuto {
  return v.trim() === 'auto' ? 'auto' : lengthPercentage(v);
}

function dimension(v: string | undefined): Dimension {
  if (v === undefined || v.trim() === 'auto' || v.trim() === 'none') return 'auto';
  return lengthPercentage(v);
}

function track(v: string): TrackSizingFunction {
  const t = v.trim();
  const minmax = /^minmax\((.*)\)$/.exec(t);
  if (minmax) {
    const [lo, hi] = topLevel(minmax[1], /,/);
    const min = track(lo).min;
    const max = track(hi).max;
    return { min, max };
  }
  if (t.endsWith('fr')) return { min: 'auto', max: `${Number(t.slice(0, -2))}fr` };
  if (t === 'auto' || t === 'min-content' || t === 'max-content') return { min: t, max: t };
  const l = lengthPercentage(t);
  return { min: l, max: l };
}

function trackList(v: string): GridTemplateComponent[] {
  return topLevel(v, /\s/).map((part) => {
    const rep = /^repeat\((.*)\)$/.exec(part);
    if (!rep) return track(part);
    const [count, ...rest] = topLevel(rep[1], /,/);
    return {
      count: count === 'auto-fill' || count === 'auto-fit' ? count : Number(count),
      tracks: topLevel(rest.join(','), /\s/).map(track),
    };
  });
}

const alignItems: Record<string, AlignItems> = {
  'flex-start': AlignItems.FlexStart,
  'flex-end': AlignItems.FlexEnd,
  start: AlignItems.Start,
  end: AlignItems.End,
  center: AlignItems.Center,
  stretch: AlignItems.Stretch,
  baseline: AlignItems.Baseline,
};
const alignSelf: Record<string, AlignSelf> = {
  auto: AlignSelf.Auto,
  'flex-start': AlignSelf.FlexStart,
  'flex-end': AlignSelf.FlexEnd,
  start: AlignSelf.Start,
  end: AlignSelf.End,
  center: AlignSelf.Center,
  stretch: AlignSelf.Stretch,
  baseline: AlignSelf.Baseline,
};
const justify: Record<string, JustifyContent> = {
  'flex-start': JustifyContent.FlexStart,
  'flex-end': JustifyContent.FlexEnd,
  start: JustifyContent.Start,
  end: JustifyContent.End,
  center: JustifyContent.Center,
  'space-between': JustifyContent.SpaceBetween,
  'space-around': JustifyContent.SpaceAround,
  'space-evenly': JustifyContent.SpaceEvenly,
  stretch: JustifyContent.Stretch,
};
const directions: Record<string, FlexDirection> = {
  row: FlexDirection.Row,
  'row-reverse': FlexDirection.RowReverse,
  column: FlexDirection.Column,
  'column-reverse': FlexDirection.ColumnReverse,
};
const displays: Record<string, Display> = {
  flex: Display.Flex,
  grid: Display.Grid,
  block: Display.Block,
  'flow-root': Display.FlowRoot,
  none: Display.None,
};

/** The Taffy style of one probe box: CSS's initial values, then each property it sets. */
function styleOf(s: Record<string, string>): Style {
  const style = new Style();
  // The widget's reset: all:initial; display:block; box-sizing:content-box; margin, padding, border 0.
  style.display = displays[s.display ?? 'block'] ?? Display.Block;
  style.boxSizing = s['box-sizing'] === 'border-box' ? BoxSizing.BorderBox : BoxSizing.ContentBox;
  style.flexShrink = 1;
  for (const [prop, value] of Object.entries(s)) {
    switch (prop) {
      case 'width':
      case 'height':
      case 'min-width':
      case 'max-width':
      case 'min-height':
      case 'max-height': {
        const key = prop.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()) as
          'width' | 'height' | 'minWidth' | 'maxWidth' | 'minHeight' | 'maxHeight';
        style[key] = dimension(value);
        break;
      }
      case 'padding':
        style.padding = sides(value, lengthPercentage);
        break;
      case 'margin':
        style.margin = sides(value, lengthAuto);
        break;
      case 'border': {
        const w = borderWidth(value);
        style.border = { top: w, right: w, bottom: w, left: w };
        break;
      }
      case 'gap': {
        const [row, column = row] = value.trim().split(/\s+/);
        style.gap = { height: lengthPercentage(row), width: lengthPercentage(column) };
        break;
      }
      case 'flex': {
        const parts = value.trim().split(/\s+/);
        if (parts[0] === 'none') {
          style.flexGrow = 0;
          style.flexShrink = 0;
          style.flexBasis = 'auto';
        } else if (parts[0] === 'auto') {
          style.flexGrow = 1;
          style.flexShrink = 1;
          style.flexBasis = 'auto';
        } else {
          style.flexGrow = Number(parts[0]);
          style.flexShrink = parts[1] !== undefined && /^[\d.]+$/.test(parts[1]) ? Number(parts[1]) : 1;
          const basis = parts.find((p, i) => i > 0 && !/^[\d.]+$/.test(p));
          style.flexBasis = basis ? dimension(basis) : 0;
        }
        break;
      }
      case 'flex-wrap':
        style.flexWrap = value === 'wrap' ? FlexWrap.Wrap : value === 'wrap-reverse' ? FlexWrap.WrapReverse : 0;
        break;
      case 'flex-direction':
        style.flexDirection = directions[value] ?? FlexDirection.Row;
        break;
      case 'align-items':
        style.alignItems = alignItems[value];
        break;
      case 'align-self':
        style.alignSelf = alignSelf[value];
        break;
      case 'justify-content':
        style.justifyContent = justify[value];
        break;
      case 'aspect-ratio': {
        style.aspectRatio = ratioOf(value);
        break;
      }
      case 'grid-template-columns':
        style.gridTemplateColumns = trackList(value);
        break;
      case 'grid-auto-rows':
        style.gridAutoRows = topLevel(value, /\s/).map(track);
        break;
      case 'grid-column': {
        const span = /^span\s+(\d+)$/.exec(value.trim());
        if (span) style.gridColumn = { start: { span: Number(span[1]) }, end: 'auto' };
        break;
      }
    }
  }
  return style;
}

/** A crude guess at a text's size in the widget's font: half an em per character, one line. */
function guessText(box: AnyBox): { width: number; height: number } {
  const text = typeof box.t === 'string' ? box.t : '';
  return { width: Math.round(text.length * 8), height: text ? 18 : 0 };
}

const taffyDisplays = new Set(Object.keys(displays));

/**
 * The values `measureProbe` would return for `probe`, computed by Taffy: for each marked box
 * in document order, its left, top, width and height relative to the root box, rounded.
 */
export function layoutWithTaffy(probe: BoxLayout): number[] {
  const tree = new TaffyTree();
  tree.disableRounding();
  const styles: Style[] = [];
  const marked: bigint[] = [];
  const ratioItems: { node: bigint; box: AnyBox; stretch: boolean; row?: number }[] = [];
  const build = (box: AnyBox): bigint => {
    const style = styleOf(box.s);
    styles.push(style);
    // Document order for the answer; `order` (which Taffy lacks) for the layout.
    const kids = (box.c ?? []).map((c) => ({ box: c, order: Number(c.s.order ?? 0) || 0 }));
    const ids: bigint[] = [];
    let node: bigint;
    if (box.t !== undefined || !taffyDisplays.has(box.s.display ?? 'block')) {
      node = tree.newLeafWithContext(style, { text: guessText(box) });
      if (box.m) marked.push(node);
      // Its children still answer (at the bot's guess), so the answer keeps its length.
      for (const k of kids) build(k.box);
      return node;
    }
    node = tree.newLeaf(style);
    if (box.m) marked.push(node);
    for (const k of kids) {
      const id = build(k.box);
      ids.push(id);
      const cs = k.box.s;
      if (box.s.display === 'grid' && cs['aspect-ratio'] && !cs.height) {
        const [, inline = ''] = (cs.margin ?? '').split(/\s+/);
        const rowPx = /^(?:minmax\()?(\d+)px/.exec(box.s['grid-auto-rows'] ?? '')?.[1];
        const row = inline === 'auto' && rowPx !== undefined ? Number(rowPx) : undefined;
        ratioItems.push({ node: id, box: k.box, stretch: false, row });
      } else if (box.s.display === 'flex' && cs['aspect-ratio'] && !cs.height && cs.display !== 'grid') {
        const align =
          cs['align-self'] && cs['align-self'] !== 'auto' ? cs['align-self'] : (box.s['align-items'] ?? 'stretch');
        const autoCross = /auto/.test((cs.margin ?? '').split(/\s+/)[0] ?? '');
        ratioItems.push({ node: id, box: k.box, stretch: (align === 'stretch' || align === 'normal') && !autoCross });
      }
    }
    const laidOut = kids.map((k, i) => ({ order: k.order, i })).sort((a, b) => a.order - b.order || a.i - b.i);
    tree.setChildren(
      node,
      laidOut.map((k) => ids[k.i]),
    );
    return node;
  };
  try {
    const root = build(probe);
    const compute = () =>
      tree.computeLayoutWithMeasure(root, { width: 'max-content', height: 'max-content' }, (known, _a, _n, ctx, s) => {
        s.free();
        const guess = (ctx as { text?: { width: number; height: number } } | undefined)?.text;
        return { width: known.width ?? guess?.width ?? 0, height: known.height ?? guess?.height ?? 0 };
      });
    compute();
    // Taffy leaves a flex item's aspect ratio out of its cross size once flexing set its width;
    // a browser derives the height from the flexed width. Second pass: that height, made explicit.
    // A grid item with auto inline margins is not stretched: a browser stretches its block
    // size to the row and derives the width from it.
    for (let pass = 0; pass < 3 && ratioItems.length; pass++) {
      for (const { node, box, stretch, row } of ratioItems) {
        const layout = tree.unroundedLayout(node);
        const ratio = ratioOf(box.s['aspect-ratio']);
        const style = tree.getStyle(node);
        const contentBox = box.s['box-sizing'] !== 'border-box';
        const inlineExtra = layout.paddingLeft + layout.paddingRight + layout.borderLeft + layout.borderRight;
        const blockExtra = layout.paddingTop + layout.paddingBottom + layout.borderTop + layout.borderBottom;
        if (row !== undefined) {
          const height = Math.max(blockExtra, row - layout.marginTop - layout.marginBottom);
          style.height = contentBox ? height - blockExtra : height;
          const width = contentBox ? (height - blockExtra) * ratio : Math.max(inlineExtra, height * ratio);
          style.width = width;
        } else {
          const height = contentBox ? (layout.width - inlineExtra) / ratio : Math.max(blockExtra, layout.width / ratio);
          if (stretch) style.minHeight = height;
          else style.height = height;
          if (box.s['min-width'] === undefined) style.minWidth = 0;
        }
        layout.free();
        style.aspectRatio = undefined;
        tree.setStyle(node, style);
        style.free();
      }
      compute();
    }
    const origin = (node: bigint): { x: number; y: number } => {
      const layout = tree.unroundedLayout(node);
      const here = { x: layout.x, y: layout.y };
      layout.free();
      const parent = node === root ? undefined : tree.parent(node);
      if (parent === undefined || node === root) return { x: 0, y: 0 };
      const up = origin(parent);
      return { x: up.x + here.x, y: up.y + here.y };
    };
    const values: number[] = [];
    for (const node of marked) {
      const { x, y } = origin(node);
      const layout = tree.unroundedLayout(node);
      // measureProbe rounds each value of getBoundingClientRect relative to the root.
      values.push(Math.round(x), Math.round(y), Math.round(layout.width), Math.round(layout.height));
      layout.free();
    }
    return values;
  } finally {
    for (const s of styles) s.free();
    tree.free();
  }
}

/**
 * The line of each word of a paragraph, as Taffy lays it out: a flex row that wraps, a word
 * spacing's gap between items, the indent a leading box; floats left out.
 */
export function paragraphWithTaffy(probe: ProbeBox): number[] {
  const { width, lineHeight, gap, indent, items } = paragraphRow(probe);
  const tree = new TaffyTree();
  const styles: Style[] = [];
  const leaf = (w: number, h: number): bigint => {
    const style = new Style();
    style.size = { width: w, height: h };
    style.flexShrink = 0;
    styles.push(style);
    return tree.newLeaf(style);
  };
  try {
    const nodes = items.map((item) => ({ item, id: leaf(item.width, lineHeight) }));
    const row = new Style();
    styles.push(row);
    row.display = Display.Flex;
    row.flexWrap = FlexWrap.Wrap;
    row.alignItems = AlignItems.FlexStart;
    row.size = { width, height: 'auto' };
    row.gap = { width: gap, height: 0 };
    const root = tree.newWithChildren(row, [leaf(indent, 0), ...nodes.map((n) => n.id)]);
    tree.computeLayout(root, { width, height: 'max-content' });
    const tops = nodes
      .filter((n) => n.item.kind === 'word')
      .map(({ id }) => {
        const layout = tree.unroundedLayout(id);
        const y = layout.y;
        layout.free();
        return y;
      });
    return linesOf(tops, lineHeight);
  } finally {
    for (const s of styles) s.free();
    tree.free();
  }
}

/** Taffy as an attacker: flex and grid for the former boxes, a wrapping flex row for the paragraph. */
export const taffyBot: LayoutBot = { name: 'Taffy', boxes: layoutWithTaffy, paragraph: paragraphWithTaffy };
