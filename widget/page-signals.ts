/**
 * What the page shows about the browser it runs in, beside what the visitor's window says
 * (telemetry.ts): traces an automation framework leaves in the page, and the facts the
 * service compares with the HTTP request that carries them (src/captcha/page-signals.ts).
 * Each was measured against Debian's Chromium and Firefox ESR driven as people are (no
 * automation protocol attached) and against the frameworks in test/adversary/frameworks.ts;
 * docs/challenges.md ("Signals") lists them with what each costs an attacker to defeat.
 *
 * Read once a page, when the script loads; {@link pageSignals} waits for it at most
 * {@link READ_DEADLINE_MS}. Nothing here identifies the visitor: flags, the User-Agent and
 * language the request carries anyway, the browser's own brand list and its GPU renderer's name.
 */

import type { PageSignals } from '../src/captcha/page-signals.ts';

const READ_DEADLINE_MS = 1500;
const AUTOMATION_GLOBALS =
  /^(cdc_|\$cdc_|__playwright|__pw_|__pwInitScripts|__puppeteer|__selenium|__webdriver|__driver|_Selenium_IDE|callPhantom|_phantom|__nightmare|domAutomation|__lastWatirAlert)/;

/**
 * Whether a DevTools protocol client serialises console messages. Such a client (Puppeteer,
 * Playwright, chromedriver: each enables the Runtime domain) builds a preview of every logged
 * error, which reads the error's stack and so calls `Error.prepareStackTrace` at once; without
 * a client nothing reads it. Rebrowser's patches keep the domain off, and are seen otherwise.
 */
function devtoolsClient(): boolean {
  const ctor = Error as unknown as { prepareStackTrace?: (this: void, e: Error, frames: unknown[]) => unknown };
  const previous = ctor.prepareStackTrace;
  let read = false;
  const probe = new Error('auditcaptcha: a check for an attached automation protocol; ignore');
  ctor.prepareStackTrace = (e, frames) => {
    read = true;
    return previous ? previous(e, frames) : `${e.name}: ${e.message}`;
  };
  try {
    console.debug(probe);
  } finally {
    ctor.prepareStackTrace = previous;
  }
  return read;
}

function automationGlobals(): boolean {
  const names = [...Object.getOwnPropertyNames(window), ...Object.getOwnPropertyNames(document)];
  return names.some((n) => AUTOMATION_GLOBALS.test(n));
}

function noPointer(): boolean {
  return !matchMedia('(any-pointer: fine)').matches && !matchMedia('(any-pointer: coarse)').matches;
}

const isNative = (f: unknown) =>
  typeof f === 'function' && /\{\s*\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(f));

/** Natives a stealth script patches: document's own methods, Navigator's getters, `webdriver` gone. */
function tampered(): boolean {
  for (const name of Object.getOwnPropertyNames(document)) {
    const value = (document as unknown as Record<string, unknown>)[name];
    if (name in Document.prototype && typeof value === 'function') return true;
  }
  if (!('webdriver' in navigator)) return true;
  for (const name of ['webdriver', 'userAgent', 'languages', 'platform', 'hardwareConcurrency', 'plugins']) {
    const getter = (Object.getOwnPropertyDescriptor(Navigator.prototype, name) as { get?: unknown } | undefined)?.get;
    if (getter !== undefined && !isNative(getter)) return true;
  }
  return false;
}

async function permissionMismatch(): Promise<boolean> {
  if (typeof Notification === 'undefined' || !navigator.permissions) return false;
  const state = (await navigator.permissions.query({ name: 'notifications' })).state;
  const expected = { default: 'prompt', denied: 'denied', granted: 'granted' }[Notification.permission];
  return expected !== undefined && state !== expected;
}

interface UaData {
  brands: { brand: string; version: string }[];
  platform: string;
  getHighEntropyValues(hints: string[]): Promise<{ fullVersionList?: { brand: string; version: string }[] }>;
}

async function clientHints(): Promise<Pick<PageSignals, 'brands' | 'platform' | 'ua_data'>> {
  const data = (navigator as Navigator & { userAgentData?: UaData }).userAgentData;
  if (!data) return { brands: '', platform: '', ua_data: 'absent' };
  const brands = data.brands.map((b) => `${b.brand}/${b.version}`).join(',');
  const { fullVersionList = [] } = await data.getHighEntropyValues(['fullVersionList']);
  const major = /Chrom(?:e|ium)\/(\d+)/.exec(navigator.userAgent)?.[1];
  const named = fullVersionList.filter((b) => /Chrom/.test(b.brand));
  const uaData: PageSignals['ua_data'] = !fullVersionList.length
    ? 'empty'
    : major && named.length && !named.some((b) => b.version.split('.')[0] === major)
      ? 'mismatch'
      : 'full';
  return { brands, platform: data.platform, ua_data: uaData };
}

function webglRenderer(): string {
  const gl = document.createElement('canvas').getContext('webgl');
  const ext = gl?.getExtension('WEBGL_debug_renderer_info');
  const name: unknown = gl && ext ? gl.getParameter(ext.UNMASKED_RENDERER_WEBGL) : '';
  gl?.getExtension('WEBGL_lose_context')?.loseContext();
  return typeof name === 'string' ? name.slice(0, 200) : '';
}

/** One reading, each part guarded: a check that throws reads as nothing found, not as a verdict. */
async function read(): Promise<PageSignals> {
  const guard = <T>(f: () => T, fallback: T): T => {
    try {
      return f();
    } catch {
      return fallback;
    }
  };
  const [hints, permission] = await Promise.all([
    clientHints().catch(() => ({ brands: '', platform: '', ua_data: 'absent' as const })),
    permissionMismatch().catch(() => false),
  ]);
  return {
    cdp: guard(devtoolsClient, false),
    automation: guard(automationGlobals, false),
    no_pointer: guard(noPointer, false),
    tampered: guard(tampered, false),
    permission_mismatch: permission,
    ua: navigator.userAgent.slice(0, 512),
    language: String(navigator.language).slice(0, 35),
    ...hints,
    webgl: guard(webglRenderer, ''),
  };
}

let reading: Promise<PageSignals> | undefined;
let done: PageSignals | undefined;

/** Starts the reading (once, when the script loads). */
export function readPageSignals(): void {
  reading ??= read().then((s) => (done = s));
}

/** The page's signals, once read (at most {@link READ_DEADLINE_MS} of waiting); undefined if they are not. */
export async function pageSignals(): Promise<PageSignals | undefined> {
  readPageSignals();
  if (done) return done;
  await Promise.race([reading, new Promise((r) => setTimeout(r, READ_DEADLINE_MS))]);
  return done;
}
