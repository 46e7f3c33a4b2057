/**
 * The environment proof as it was before it became text: a layout of empty flex and grid
 * boxes, each measured box's left, top, width and height. Kept here, with the code that
 * measures it in a page, to record what a box layout library (Taffy) gets right against
 * Chromium, the reason the proof moved to text (docs/challenges.md, "Environment proof").
 */
import type { Page } from 'playwright-core';
import type { Rng } from '../../src/captcha/render.ts';

/** One box: its inline style, children, and whether it is measured. */
export interface BoxLayout {
  s: Record<string, string>;
  c?: BoxLayout[];
  m?: 1;
}

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)];
const int = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));

/** A box with fixed lengths or a share of the row, sometimes an aspect ratio instead of a height. */
function item(rng: Rng, inGrid: boolean): BoxLayout {
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
function grid(rng: Rng): BoxLayout {
  const tracks = pick(rng, [
    `repeat(${int(rng, 2, 4)}, minmax(${int(rng, 8, 40)}px, 1fr))`,
    `${int(rng, 10, 50)}px ${int(rng, 1, 3)}fr ${int(rng, 1, 3)}fr`,
    `${int(rng, 1, 3)}fr ${int(rng, 20, 60)}px`,
  ]);
  const box: BoxLayout = {
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
export function generateBoxes(rng: Rng): BoxLayout {
  const root: BoxLayout = {
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
export function boxValueCount(box: BoxLayout): number {
  return (box.m ? 4 : 0) + (box.c ?? []).reduce((n, c) => n + boxValueCount(c), 0);
}

/** Lays each layout out in `page` as the widget used to (a hidden shadow root, every page style reset) and measures it. */
export function measureBoxes(page: Page, layouts: BoxLayout[]): Promise<number[][]> {
  return page.evaluate((ls) => {
    type Box = { s: Record<string, string>; c?: Box[]; m?: 1 };
    const build = (box: Box, marked: HTMLElement[]): HTMLElement => {
      const el = document.createElement('div');
      el.style.cssText = 'all:initial;display:block;box-sizing:content-box;margin:0;padding:0;border:0 solid';
      for (const [prop, value] of Object.entries(box.s)) el.style.setProperty(prop, value);
      if (box.m) marked.push(el);
      for (const child of box.c ?? []) el.append(build(child, marked));
      return el;
    };
    return ls.map((layout) => {
      const host = document.createElement('div');
      host.style.cssText = 'position:absolute;left:-10000px;top:0;visibility:hidden';
      const marked: HTMLElement[] = [];
      const root = build(layout, marked);
      host.attachShadow({ mode: 'open' }).append(root);
      document.body.append(host);
      const origin = root.getBoundingClientRect();
      const values = marked.flatMap((el) => {
        const r = el.getBoundingClientRect();
        return [r.left - origin.left, r.top - origin.top, r.width, r.height].map(Math.round);
      });
      host.remove();
      return values;
    });
  }, layouts);
}
