/**
 * Lays out an environment proof's paragraph (src/captcha/env-proof.ts) in a hidden shadow
 * root, so the page's own CSS cannot reach it, in the proof's own font, and measures the line
 * each word lands on. The same code runs in the widget and in the service's Chromium when it
 * takes the reference values (engine-reference.ts, through the env-probes.js bundle).
 */
import type { ProbeBox } from '../src/captcha/env-proof.ts';

/** The only properties a paragraph may set; the widget applies no other. */
export const PROBE_PROPERTIES: ReadonlySet<string> = new Set([
  'display',
  'width',
  'height',
  'margin',
  'float',
  'vertical-align',
  'font-size',
  'line-height',
  'word-spacing',
  'text-indent',
  'text-transform',
  'text-align',
]);

/** The family the proof's font is added to the document under (its bytes: shared/probe-font.ts). */
const PROBE_FONT_FAMILY = 'AuditcaptchaProbe';

/** Where the proof's font comes from: the widget fetches it from the service, the reference bundle carries it. */
export type FontBytes = () => Promise<BufferSource>;

/** Resets what a shadow tree inherits from the page. */
const RESET = 'all:initial;display:block;box-sizing:content-box;margin:0;padding:0;border:0 solid';
/** The paragraph: the proof's font, and nothing of the page's or the browser's text settings. */
const TEXT_RESET =
  `${RESET};font-family:'${PROBE_FONT_FAMILY}';white-space:normal;font-kerning:none;font-variant-ligatures:none;` +
  'text-size-adjust:none;-webkit-text-size-adjust:none;letter-spacing:0;hyphens:manual;overflow-wrap:normal';

function styled(el: HTMLElement, base: string, box: ProbeBox): HTMLElement {
  el.style.cssText = base;
  for (const [prop, value] of Object.entries(box.s)) if (PROBE_PROPERTIES.has(prop)) el.style.setProperty(prop, value);
  return el;
}

let fontLoaded: Promise<void> | undefined;

/**
 * Adds the proof's font to the document once, from its bytes (a FontFace made from bytes is
 * not a font load: the page's CSP font-src does not apply; fetching them is connect-src's).
 * A failure is forgotten, so the next challenge tries again.
 */
function loadProbeFont(bytes: FontBytes): Promise<void> {
  fontLoaded ??= (async () => {
    const face = new FontFace(PROBE_FONT_FAMILY, await bytes());
    await face.load();
    document.fonts.add(face);
  })().catch((err: unknown) => {
    fontLoaded = undefined;
    throw err;
  });
  return fontLoaded;
}

/** The paragraph: floats and inline blocks as styled, each word of a run in its own span, one space between items. */
function build(text: ProbeBox, words: HTMLElement[]): HTMLElement {
  const root = styled(document.createElement('div'), TEXT_RESET, text);
  for (const child of text.c ?? []) {
    if (child.t !== undefined) {
      for (const word of child.t.split(' ')) {
        const span = document.createElement('span');
        span.textContent = word;
        words.push(span);
        root.append(span, ' ');
      }
    } else {
      root.append(styled(document.createElement('div'), RESET, child), ' ');
    }
  }
  return root;
}

/**
 * The line each word lands on: 0 for the first line, and each next line its distance from the
 * line before in line heights, rounded (a line that had to go below a float counts the lines
 * it skipped). Distances between lines, not from the paragraph's top: an engine whose font
 * metrics place the text a pixel higher moves every line alike.
 */
function measureNow(text: ProbeBox): number[] {
  const words: HTMLElement[] = [];
  const root = build(text, words);
  const lineHeight = Number.parseFloat(text.s['line-height'] ?? '') || 1;
  const host = document.createElement('div');
  host.style.cssText = 'position:absolute;left:-10000px;top:0;visibility:hidden;pointer-events:none';
  host.attachShadow({ mode: 'open' }).append(root);
  (document.body ?? document.documentElement).append(host);
  try {
    const tops = words.map((w) => Math.round(w.getBoundingClientRect().top));
    const distinct = [...new Set(tops)].sort((a, b) => a - b);
    const lineOf = new Map<number, number>();
    distinct.forEach((top, i) => {
      const previous = i === 0 ? undefined : distinct[i - 1];
      const line =
        previous === undefined ? 0 : lineOf.get(previous)! + Math.max(1, Math.round((top - previous) / lineHeight));
      lineOf.set(top, line);
    });
    return tops.map((top) => lineOf.get(top)!);
  } finally {
    host.remove();
  }
}

/** What the widget answers: the line of each word, once the proof's font is loaded. */
export async function measureProbe(text: ProbeBox, font: FontBytes): Promise<number[]> {
  await loadProbeFont(font);
  return measureNow(text);
}

/**
 * The reference values (the service's Chromium): as {@link measureProbe}, with each word whose
 * line changes when the paragraph is 3 px narrower or wider marked -1 (not checked), so
 * another engine's rounding cannot fail a person.
 */
export async function referenceValues(text: ProbeBox, font: FontBytes): Promise<number[]> {
  const measured = await measureProbe(text, font);
  const width = Number.parseInt(text.s.width ?? '', 10);
  for (const delta of [-3, 3]) {
    measureNow({ ...text, s: { ...text.s, width: `${width + delta}px` } }).forEach((line, i) => {
      if (line !== measured[i]) measured[i] = -1;
    });
  }
  return measured;
}
