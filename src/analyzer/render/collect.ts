/**
 * In-page collection of lab measurements.
 *
 * {@link observerScript} is added to every page before the page's own scripts run; it records
 * paint, largest-contentful-paint, layout-shift and longtask entries with PerformanceObserver.
 * The observers run over the whole render, so what happens after the load event (a late
 * hero image, a banner, a long task) counts until the page is quiet (quiet.ts).
 * {@link collectInPage} is evaluated once the page has settled and returns what the observers
 * saw plus image geometry and render-blocking resources. Everything coming back from the page
 * is untrusted input: {@link sanitizeInPage} clamps numbers and truncates strings.
 */
import type { Page } from 'playwright-core';
import { AnalyzeError } from '../errors.ts';

/** Where the observers keep their entries (a property name a page will not use by chance). */
const store = '__auditcaptchaLab';

/** Installed with `context.addInitScript` before any page script. */
export const observerScript = `(() => {
  const s = { fcp: null, lcp: null, lcpElement: null, shifts: [], longTasks: [] };
  Object.defineProperty(window, ${JSON.stringify(store)}, { value: s, enumerable: false });
  const describe = (el) => {
    if (!el || !el.tagName) return null;
    const tag = el.tagName.toLowerCase();
    const src = el.currentSrc || el.getAttribute('src');
    return src ? '<' + tag + ' src="' + String(src).slice(0, 120) + '">' : '<' + tag + '>';
  };
  const observe = (type, onEntry) => {
    try { new PerformanceObserver((list) => list.getEntries().forEach(onEntry)).observe({ type, buffered: true }); } catch (e) {}
  };
  observe('paint', (e) => { if (e.name === 'first-contentful-paint') s.fcp = e.startTime; });
  observe('largest-contentful-paint', (e) => { s.lcp = e.renderTime || e.loadTime || e.startTime; s.lcpElement = describe(e.element); });
  observe('layout-shift', (e) => { if (!e.hadRecentInput) s.shifts.push([e.startTime, e.value]); });
  observe('longtask', (e) => { s.longTasks.push([e.startTime, e.duration]); });
  // Whatever a page logs is sent to us whole by the DevTools protocol: strings are cut and
  // the number of messages bounded here, in the page, before they cross.
  let logged = 0;
  const cut = (v) => (typeof v === 'string' && v.length > 300 ? v.slice(0, 300) : v);
  for (const name of ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir', 'table']) {
    const original = console[name];
    if (typeof original !== 'function') continue;
    console[name] = function (...args) {
      if (++logged > 200) return;
      return original.apply(this, args.slice(0, 10).map(cut));
    };
  }
})();`;

/** What one image looks like on the page. */
export interface ImageGeometry {
  src: string;
  naturalWidth: number;
  naturalHeight: number;
  /** Displayed size in CSS pixels. */
  width: number;
  height: number;
  /**
   * Share of the image's box outside what Lighthouse's offscreen-images audit counts as
   * visible (the first viewport widened by 100 px left, right and above and by three
   * viewport heights below), 0-1; 1 for an image of no area.
   */
  offscreenShare: number;
  /** The image sets its loading behaviour itself (`loading="lazy"` or `"eager"`). */
  loadingSet: boolean;
  /** When its request started (resource timing, ms from navigation start); null if unknown. */
  requestedMs: number | null;
}

/** Raw in-page facts, before scoring. */
export interface InPageFacts {
  fcpMs: number | null;
  lcpMs: number | null;
  lcpElement: string | null;
  /** [startTime, value] of each layout shift without recent input. */
  shifts: Array<[number, number]>;
  /** [startTime, duration] of each long task. */
  longTasks: Array<[number, number]>;
  /** DOMContentLoaded (its start, ms from navigation start); null before it came. */
  dclMs: number | null;
  images: ImageGeometry[];
  /** URLs of resources Chromium marked render-blocking. */
  renderBlocking: string[];
  devicePixelRatio: number;
}

/** Evaluated in the page; plain DOM and Performance APIs only. */
function inPage(storeName: string): unknown {
  const w = window as unknown as Record<
    string,
    { fcp: number | null; lcp: number | null; lcpElement: string | null; shifts: unknown[]; longTasks: unknown[] }
  >;
  const s = w[storeName] ?? { fcp: null, lcp: null, lcpElement: null, shifts: [], longTasks: [] };
  const vw = window.innerWidth;
  const vh = window.innerHeight;
  const resources = performance.getEntriesByType('resource');
  const requested = new Map<string, number>();
  for (const e of resources) if (!requested.has(e.name)) requested.set(e.name, e.startTime);
  const images = Array.from(document.images)
    .slice(0, 300)
    .map((img) => {
      const r = img.getBoundingClientRect();
      // Positions as at the top of the page, the visible area widened as Lighthouse's
      // offscreen-images audit does (computeVisiblePixels).
      const top = r.top + window.scrollY;
      const left = r.left + window.scrollX;
      const area = r.width * r.height;
      const visW = Math.max(0, Math.min(left + r.width, vw + 100) - Math.max(left, -100));
      const visH = Math.max(0, Math.min(top + r.height, vh * 4) - Math.max(top, -100));
      const src = (img.currentSrc || img.src).slice(0, 2048);
      const loading = (img.getAttribute('loading') ?? '').toLowerCase();
      return {
        src,
        naturalWidth: img.naturalWidth,
        naturalHeight: img.naturalHeight,
        width: r.width,
        height: r.height,
        offscreenShare: area > 0 ? 1 - (visW * visH) / area : 1,
        loadingSet: loading === 'lazy' || loading === 'eager',
        requestedMs: requested.get(src) ?? null,
      };
    });
  const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
  const dcl = navigation?.domContentLoadedEventStart;
  const renderBlocking = (resources as Array<PerformanceResourceTiming & { renderBlockingStatus?: string }>)
    .filter((e) => e.renderBlockingStatus === 'blocking')
    .slice(0, 200)
    .map((e) => e.name.slice(0, 2048));
  return {
    fcpMs: s.fcp,
    lcpMs: s.lcp,
    lcpElement: s.lcpElement,
    shifts: s.shifts.slice(0, 2000),
    longTasks: s.longTasks.slice(0, 2000),
    dclMs: dcl && dcl > 0 ? dcl : null,
    images,
    renderBlocking: renderBlocking.slice(0, 200),
    devicePixelRatio: window.devicePixelRatio,
  };
}

function num(value: unknown, max = 1e9): number {
  const n = typeof value === 'number' && Number.isFinite(value) ? value : 0;
  return Math.min(Math.max(n, 0), max);
}

function numOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.min(value, 1e9) : null;
}

function str(value: unknown, max = 500): string {
  return typeof value === 'string' ? value.slice(0, max) : '';
}

function pairs(value: unknown): Array<[number, number]> {
  if (!Array.isArray(value)) return [];
  return value.filter(Array.isArray).map((p) => [num(p[0]), num(p[1], 1e6)] as [number, number]);
}

/** Validate what the page returned; a page can only lie about itself, never break us. */
export function sanitizeInPage(raw: unknown): InPageFacts {
  const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const images = Array.isArray(r['images']) ? r['images'] : [];
  return {
    fcpMs: numOrNull(r['fcpMs']),
    lcpMs: numOrNull(r['lcpMs']),
    lcpElement: typeof r['lcpElement'] === 'string' ? str(r['lcpElement'], 200) : null,
    shifts: pairs(r['shifts']),
    longTasks: pairs(r['longTasks']),
    dclMs: numOrNull(r['dclMs']),
    images: images.map((img) => {
      const i = (img && typeof img === 'object' ? img : {}) as Record<string, unknown>;
      return {
        src: str(i['src'], 2048),
        naturalWidth: num(i['naturalWidth'], 1e6),
        naturalHeight: num(i['naturalHeight'], 1e6),
        width: num(i['width'], 1e6),
        height: num(i['height'], 1e6),
        offscreenShare: num(i['offscreenShare'], 1),
        loadingSet: i['loadingSet'] === true,
        requestedMs: numOrNull(i['requestedMs']),
      };
    }),
    renderBlocking: (Array.isArray(r['renderBlocking']) ? r['renderBlocking'] : [])
      .map((u) => str(u, 2048))
      .filter(Boolean),
    devicePixelRatio: num(r['devicePixelRatio'], 10) || 1,
  };
}

/**
 * The rendered document (doctype and markup, as `page.content()` gives it), measured in the
 * page: one longer than `maxChars` never crosses to this process and fails the render with
 * `render_limit`.
 */
export async function documentInPage(page: Page, maxChars: number): Promise<string> {
  const taken = await page.evaluate((max) => {
    // String(): a page may have replaced these getters; only a real string's length is measured.
    const doctype = String(document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '');
    const markup = String(document.documentElement ? document.documentElement.outerHTML : '');
    const length = doctype.length + markup.length;
    return length > max ? { length, html: null } : { length, html: doctype + markup };
  }, maxChars);
  if (typeof taken?.html !== 'string' || taken.html.length > maxChars) {
    throw new AnalyzeError('render_limit', `The rendered document is longer than ${maxChars} characters.`);
  }
  return taken.html;
}

/**
 * Time since the page's last long task ended (or since navigation start when it had none),
 * ms, as Lighthouse's CPU-idle wait measures it. 0 when the page cannot say.
 */
export async function msSinceLastLongTask(page: Page): Promise<number> {
  const ms = await page
    .evaluate((storeName) => {
      const s = (window as unknown as Record<string, { longTasks: Array<[number, number]> } | undefined>)[storeName];
      let lastEnd = 0;
      for (const [start, duration] of s?.longTasks ?? []) lastEnd = Math.max(lastEnd, start + duration);
      return performance.now() - lastEnd;
    }, store)
    .catch(() => 0);
  return num(ms);
}

/** Collect the observers' entries and the page's image geometry. */
export async function collectInPage(page: Page): Promise<InPageFacts> {
  return sanitizeInPage(await page.evaluate(inPage, store));
}

/**
 * Cumulative layout shift as Lighthouse and Chrome define it: the largest session window
 * (shifts less than 1 s apart, a window at most 5 s long).
 */
export function cumulativeLayoutShift(shifts: ReadonlyArray<[number, number]>): number {
  let best = 0;
  let current = 0;
  let windowStart = -Infinity;
  let last = -Infinity;
  for (const [t, value] of [...shifts].sort((a, b) => a[0] - b[0])) {
    if (t - last > 1000 || t - windowStart > 5000) {
      current = 0;
      windowStart = t;
    }
    current += value;
    last = t;
    best = Math.max(best, current);
  }
  return best;
}

/**
 * Total blocking time as Lighthouse's observed metric computes it: each long task clipped to
 * start at first contentful paint, its part beyond 50 ms. Lighthouse ends the sum at Time to
 * Interactive, after the last long task it saw, so every task of our window counts.
 */
export function totalBlockingTime(longTasks: ReadonlyArray<[number, number]>, fcpMs: number | null): number {
  let total = 0;
  for (const [start, duration] of longTasks) {
    const clippedStart = Math.max(start, fcpMs ?? 0);
    total += Math.max(0, start + duration - clippedStart - 50);
  }
  return total;
}

/**
 * When the page became interactive by Lighthouse's observed rule, as far as our window shows:
 * the latest of first contentful paint, DOMContentLoaded and the end of the last long task
 * (Lighthouse takes the start of the first 5 s quiet window, which in a window that ends a
 * second after the page went quiet is the end of its last long task). Null before first paint.
 */
export function interactiveMs(facts: Pick<InPageFacts, 'fcpMs' | 'dclMs' | 'longTasks'>): number | null {
  if (facts.fcpMs === null) return null;
  let at = Math.max(facts.fcpMs, facts.dclMs ?? 0);
  for (const [start, duration] of facts.longTasks) at = Math.max(at, start + duration);
  return at;
}
