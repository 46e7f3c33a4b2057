import type { PageSignals } from '../src/captcha/page-signals.ts';
import { pageSignals, readPageSignals } from './page-signals.ts';

/**
 * The only facts about the visitor the widget sends, and only the ones the risk model reads
 * (src/captcha/risk.ts): the `navigator.webdriver` flag, time since navigation start, a count
 * of pointer and key presses on the page (no coordinates, keys, targets or timings), and the
 * sizes of the window, its page area and the screen (a headless browser's window has no frame
 * and fills a screen of its own size), and what the page shows about the browser
 * (page-signals.ts: an automation framework's traces, and facts the service compares with
 * the request's headers).
 */
export interface Telemetry {
  webdriver: boolean;
  time_on_page_ms: number;
  interactions: number;
  outer_width: number;
  outer_height: number;
  inner_width: number;
  inner_height: number;
  screen_width: number;
  screen_height: number;
  /** devicePixelRatio in hundredths (the page's zoom on the screen's density). */
  dpr: number;
  /** What the page shows about the browser (page-signals.ts); absent when it could not be read in time. */
  page?: PageSignals;
}

let interactions = 0;
let watching = false;

/** Starts counting presses; called once when the script loads. */
export function watchInteractions(): void {
  if (watching) return;
  watching = true;
  readPageSignals();
  const count = () => {
    interactions++;
  };
  for (const type of ['pointerdown', 'keydown']) addEventListener(type, count, { capture: true, passive: true });
}

const size = (px: number) => Math.max(0, Math.min(1_000_000, Math.round(px) || 0));

export async function telemetry(): Promise<Telemetry> {
  const page = await pageSignals();
  return {
    webdriver: navigator.webdriver === true,
    time_on_page_ms: Math.min(86_400_000, Math.round(performance.now())),
    interactions: Math.min(86_400_000, interactions),
    outer_width: size(outerWidth),
    outer_height: size(outerHeight),
    inner_width: size(innerWidth),
    inner_height: size(innerHeight),
    screen_width: size(screen.width),
    screen_height: size(screen.height),
    dpr: size(devicePixelRatio * 100),
    ...(page ? { page } : {}),
  };
}
