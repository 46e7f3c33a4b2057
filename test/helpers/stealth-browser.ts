/**
 * Headless Chromium as a bot runs it, driven by playwright-core (the DevTools protocol):
 *
 * - `as-launched`: plain headless, as `chromium.launch()` gives it (HeadlessChrome in the
 *   User-Agent, navigator.webdriver true);
 * - `stealth`: the red team's "trivial stealth": a desktop User-Agent without "Headless",
 *   `--disable-blink-features=AutomationControlled` (navigator.webdriver false), languages
 *   set, and on the page a few mouse moves, a few keystrokes and a 1.6 s wait before it acts.
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM, DESKTOP_UA, requireChromium } from '../e2e/harness.ts';

export type BotKind = 'as-launched' | 'stealth';

export interface HeadlessBot {
  kind: BotKind;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Loads `url` and behaves as its kind does before acting (stealth: moves, keys, a wait). */
  visit(url: string): Promise<void>;
  close(): Promise<void>;
}

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Launches headless Chromium as `kind` and opens one page. */
export async function launchBot(kind: BotKind): Promise<HeadlessBot> {
  requireChromium();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: kind === 'stealth' ? [...ARGS, '--disable-blink-features=AutomationControlled'] : ARGS,
  });
  const context = await browser.newContext(
    kind === 'stealth'
      ? { userAgent: DESKTOP_UA, locale: 'en-GB', extraHTTPHeaders: { 'Accept-Language': 'en-GB,en;q=0.9' } }
      : {},
  );
  const page = await context.newPage();
  return {
    kind,
    browser,
    context,
    page,
    async visit(url) {
      await page.goto(url, { timeout: 30_000 });
      if (kind !== 'stealth') return;
      for (let m = 0; m < 6; m++) await page.mouse.move(40 + m * 37, 60 + m * 13, { steps: 3 });
      await page.keyboard.press('Tab');
      await page.keyboard.press('Shift+Tab');
      await page.waitForTimeout(1600);
    },
    close: () => browser.close().catch(() => {}),
  };
}
