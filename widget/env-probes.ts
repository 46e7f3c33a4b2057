/**
 * Lays out an environment-proof layout (src/captcha/env-proof.ts) in a hidden shadow root,
 * so the page's own CSS cannot reach it, and measures each marked box: left, top, width and
 * height relative to the root box, rounded to whole pixels. The same code runs in the widget
 * and in the service's Chromium when it takes the reference values (engine-reference.ts,
 * through the env-probes.js bundle).
 */
import type { ProbeBox } from '../src/captcha/env-proof.ts';

/** The only properties a layout may set; the widget applies no other. */
export const PROBE_PROPERTIES: ReadonlySet<string> = new Set([
  'display',
  'box-sizing',
  'width',
  'height',
  'min-width',
  'max-width',
  'padding',
  'border',
  'margin',
  'flex',
  'flex-wrap',
  'flex-direction',
  'align-items',
  'align-self',
  'justify-content',
  'gap',
  'aspect-ratio',
  'grid-template-columns',
  'grid-auto-rows',
  'grid-column',
  'order',
]);

function build(box: ProbeBox, marked: HTMLElement[]): HTMLElement {
  const el = document.createElement('div');
  el.style.cssText = 'all:initial;display:block;box-sizing:content-box;margin:0;padding:0;border:0 solid';
  for (const [prop, value] of Object.entries(box.s)) if (PROBE_PROPERTIES.has(prop)) el.style.setProperty(prop, value);
  if (box.m) marked.push(el);
  for (const child of box.c ?? []) el.append(build(child, marked));
  return el;
}

/** The measured values of one layout. */
export function measureProbe(probe: ProbeBox): number[] {
  const host = document.createElement('div');
  host.style.cssText = 'position:absolute;left:-10000px;top:0;visibility:hidden;pointer-events:none';
  const shadow = host.attachShadow({ mode: 'open' });
  const marked: HTMLElement[] = [];
  const root = build(probe, marked);
  shadow.append(root);
  (document.body ?? document.documentElement).append(host);
  try {
    const origin = root.getBoundingClientRect();
    const values: number[] = [];
    for (const el of marked) {
      const r = el.getBoundingClientRect();
      values.push(
        Math.round(r.left - origin.left),
        Math.round(r.top - origin.top),
        Math.round(r.width),
        Math.round(r.height),
      );
    }
    return values;
  } finally {
    host.remove();
  }
}
