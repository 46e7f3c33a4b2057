/**
 * What the page showed about the browser (widget/page-signals.ts), judged against itself and
 * against the HTTP request that carried it. Each finding is a reason of risk.ts, weighed there.
 *
 * What is read in the page is self-reported: a client without a browser sends whatever it
 * likes, so nothing here can raise a score, and a client that sends none is scored as the
 * worst case (`page_signals_missing`). What it catches is the automation that runs our widget in a
 * real browser and so reports truthfully what the framework left in the page, and the client
 * whose made-up report disagrees with its own request.
 */

/** What the page sends (widget/page-signals.ts reads it; wire.ts's schema parses it). */
export interface PageSignals {
  /** A DevTools protocol client with the Runtime domain on serialised a console message (it read the error's stack). */
  cdp: boolean;
  /** Globals an automation framework puts in the page (chromedriver's `cdc_…`, Playwright's bindings, PhantomJS, …). */
  automation: boolean;
  /** The browser has no pointing device at all (neither fine nor coarse): headless Chromium's default. */
  no_pointer: boolean;
  /** Natives patched in the page: an own `document` method, a Navigator getter that is not native, `webdriver` deleted. */
  tampered: boolean;
  /** `Notification.permission` disagrees with the Permissions API's answer for notifications. */
  permission_mismatch: boolean;
  /** `navigator.userAgent` (the request's User-Agent header should say the same). */
  ua: string;
  /** `navigator.language` (the request's Accept-Language should start with it). */
  language: string;
  /** User-Agent client hints as the page sees them: `brand/version` joined by commas; empty without `navigator.userAgentData`. */
  brands: string;
  /** `navigator.userAgentData.platform`; empty without it. */
  platform: string;
  /**
   * The high-entropy client hints: `full` (the browser gave its full version list), `empty`
   * (it gave none: the User-Agent was overridden by a command-line flag), `absent` (no
   * `navigator.userAgentData`: not a Chromium), `mismatch` (the list names another major
   * version than the User-Agent).
   */
  ua_data: 'full' | 'empty' | 'absent' | 'mismatch';
  /** The WebGL renderer's name, empty when WebGL is off. */
  webgl: string;
}

/** What {@link judgePage} reads of the telemetry (evidence.ts `Telemetry`, which holds the page's report). */
interface JudgedTelemetry {
  page?: PageSignals;
  window?: { outer: readonly [number, number]; inner: readonly [number, number] };
  /** devicePixelRatio in hundredths. */
  dpr?: number;
}

/** The request's headers the page's report is compared with. */
export interface RequestFacts {
  userAgent?: string;
  acceptLanguage?: string;
  /** Sec-CH-UA and Sec-CH-UA-Platform as sent. */
  clientHints?: { ua?: string; platform?: string };
  /** The request reached us over TLS or on a loopback host: the only requests a Chromium sends client hints on. */
  secureTransport?: boolean;
}

export const PAGE_REASONS = [
  'page_signals_missing',
  'devtools_protocol',
  'automation_globals',
  'no_pointer',
  'natives_tampered',
  'permission_mismatch',
  'ua_mismatch',
  'language_mismatch',
  'client_hints_mismatch',
  'ua_overridden',
  'webgl_spoofed',
  'window_impossible',
] as const;
export type PageReason = (typeof PAGE_REASONS)[number];

const chromiumUa = (ua: string) => /\bChrom(?:e|ium)\/\d+/.test(ua) && !/Firefox|FxiOS|EdgiOS|CriOS/.test(ua);
const mobileUa = (ua: string) => /Android|Mobile|iPhone|iPad/.test(ua);

/** `"Chromium";v="156", "Not:A-Brand";v="8"` as a sorted `brand/version` list. */
function headerBrands(header: string): string {
  return [...header.matchAll(/"([^"]*)"\s*;\s*v\s*=\s*"([^"]*)"/g)]
    .map((m) => `${m[1]}/${m[2]}`)
    .sort()
    .join(',');
}
const pageBrands = (brands: string) => brands.split(',').filter(Boolean).sort().join(',');
const unquote = (v: string) => v.trim().replace(/^"|"$/g, '');
const baseLanguage = (tag: string) =>
  tag
    .trim()
    .split(/[-_;,]/)[0]
    .toLowerCase();

/** Whether the client hints the request carried disagree with the page's, or are missing where a Chromium sends them. */
function hintsDisagree(page: PageSignals, req: RequestFacts): boolean {
  const ch = req.clientHints ?? {};
  if (!page.brands) return ch.ua !== undefined && chromiumUa(page.ua) === false;
  if (ch.ua === undefined) return req.secureTransport === true;
  if (headerBrands(ch.ua) !== pageBrands(page.brands)) return true;
  return ch.platform !== undefined && unquote(ch.platform) !== page.platform;
}

/** The window's page area larger than the window at a density of 1: no browser window is. */
function impossibleWindow(t: JudgedTelemetry, ua: string): boolean {
  const w = t.window;
  if (!w || t.dpr !== 100 || mobileUa(ua)) return false;
  return w.inner[0] > w.outer[0] + 1 || w.inner[1] > w.outer[1] + 1;
}

/** The reasons the page's report gives, in {@link PAGE_REASONS} order. Pure. */
export function judgePage(t: JudgedTelemetry | undefined, req: RequestFacts | undefined): PageReason[] {
  if (!t) return [];
  const page = t.page;
  if (!page) return ['page_signals_missing'];
  const found = new Set<PageReason>();
  if (page.cdp) found.add('devtools_protocol');
  if (page.automation) found.add('automation_globals');
  if (page.no_pointer) found.add('no_pointer');
  if (page.tampered) found.add('natives_tampered');
  if (page.permission_mismatch) found.add('permission_mismatch');
  if (page.ua_data === 'empty' || page.ua_data === 'mismatch') found.add('ua_overridden');
  // Desktop Chromium draws WebGL through ANGLE on every system; another renderer's name is written in.
  if (chromiumUa(page.ua) && !mobileUa(page.ua) && page.webgl && !page.webgl.startsWith('ANGLE ('))
    found.add('webgl_spoofed');
  if (impossibleWindow(t, page.ua)) found.add('window_impossible');
  if (req) {
    if (req.userAgent !== undefined && req.userAgent.trim() !== page.ua.trim()) found.add('ua_mismatch');
    if (req.acceptLanguage && page.language && baseLanguage(req.acceptLanguage) !== baseLanguage(page.language))
      found.add('language_mismatch');
    if (hintsDisagree(page, req)) found.add('client_hints_mismatch');
  }
  return PAGE_REASONS.filter((r) => found.has(r));
}
