/**
 * The automation people actually use, as a bot operator sets it up from each project's README
 * and the usual forum advice, against a customer's page (test/helpers/widget-page.ts): Debian's
 * Chromium, a desktop User-Agent without "Headless" and `--disable-blink-features=AutomationControlled`
 * (so `navigator.webdriver` is false), a few mouse moves and keys before acting:
 *
 * - `puppeteer`, `puppeteer-old-headless`, `puppeteer-headed`: puppeteer-core in new headless,
 *   in the old headless mode (`headless: 'shell'`; Chromium 156 has only the new one, so this
 *   asks for it and gets what the binary has), and headed on a virtual display (Xvfb);
 * - `playwright`, `playwright-headed`: playwright-core, headless and headed on Xvfb, the
 *   User-Agent and locale set on the context;
 * - `stealth`: puppeteer-extra with puppeteer-extra-plugin-stealth (every evasion), headless;
 * - `rebrowser`: rebrowser-puppeteer-core (puppeteer with rebrowser's patches: no
 *   `Runtime.enable`, its own sourceURL and utility world names), headless with the same flags;
 * - `selenium`: selenium-webdriver with Debian's chromedriver, `--headless=new`, the
 *   `enable-automation` switch excluded.
 *
 * Each gets a v3 token from the page's Sign-in button (`auditcaptcha.execute`), or tries
 * managed mode's box (v2) by keyboard, exactly as the widget runs; the page reports the token.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import puppeteer, { type Browser as PBrowser, type Page as PPage } from 'puppeteer-core';
import rebrowser from 'rebrowser-puppeteer-core';
import { addExtra } from 'puppeteer-extra';
import StealthPlugin from 'puppeteer-extra-plugin-stealth';
import { chromium } from 'playwright-core';
import { Builder, By, Key, type WebDriver } from 'selenium-webdriver';
import chrome from 'selenium-webdriver/chrome.js';
import { CHROMIUM, DESKTOP_UA } from '../e2e/harness.ts';

export const FRAMEWORKS = [
  'puppeteer',
  'puppeteer-old-headless',
  'puppeteer-headed',
  'playwright',
  'playwright-headed',
  'stealth',
  'rebrowser',
  'selenium',
] as const;
export type Framework = (typeof FRAMEWORKS)[number];

export const CHROMEDRIVER = process.env.CHROMEDRIVER_PATH || '/usr/bin/chromedriver';
const XVFB = '/usr/bin/Xvfb';
/** Whether this machine has what every framework needs: Chromium, chromedriver and Xvfb. */
export const frameworksMissing = ![CHROMIUM, CHROMEDRIVER, XVFB].every((f) => existsSync(f));

/** The usual flags: the sandbox off (root in a container), no GPU, and the automation flag's blink feature off. */
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-blink-features=AutomationControlled', '--no-first-run'];
const UA_FLAG = `--user-agent=${DESKTOP_UA}`;

/** One framework's browser with one page, driven as its kind is. */
export interface FrameworkBot {
  kind: Framework;
  /** Loads `url`, moves the mouse and presses a few keys, as the red team's scripts do before acting. */
  visit(url: string): Promise<void>;
  /** Clicks the element with this id (the page's Sign-in button). */
  click(id: string): Promise<void>;
  /** Presses Tab `n` times, then Space (managed mode's box after the page's name field). */
  tabAndSpace(n: number): Promise<void>;
  close(): Promise<void>;
}

/** A virtual display for the headed frameworks, on a free number from 120; stopped by its `stop`. */
async function openDisplay(): Promise<{ name: string; stop: () => void }> {
  for (let n = 120 + (process.pid % 40); n < 240; n++) {
    if (existsSync(`/tmp/.X${n}-lock`) || existsSync(`/tmp/.X11-unix/X${n}`)) continue;
    const xvfb: ChildProcess = spawn(XVFB, [`:${n}`, '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], {
      stdio: 'ignore',
    });
    for (let i = 0; i < 100 && xvfb.exitCode === null; i++) {
      if (existsSync(`/tmp/.X11-unix/X${n}`)) return { name: `:${n}`, stop: () => xvfb.kill('SIGKILL') };
      await sleep(50);
    }
    xvfb.kill('SIGKILL');
  }
  throw new Error('no X display: Xvfb did not start');
}

/** What a bot does on the page before it acts: a few mouse moves, Tab and back, a pause. */
async function fidget(move: (x: number, y: number) => Promise<void>, key: (k: string) => Promise<void>) {
  for (let m = 0; m < 6; m++) await move(40 + m * 37, 60 + m * 13);
  await key('Tab');
  await sleep(1600);
}

function puppeteerBot(kind: Framework, browser: PBrowser, page: PPage, after: () => void): FrameworkBot {
  return {
    kind,
    async visit(url) {
      await page.goto(url, { timeout: 30_000 });
      await fidget(
        (x, y) => page.mouse.move(x, y, { steps: 3 }),
        async (k) => {
          await page.keyboard.press(k as 'Tab');
          await page.keyboard.press('Escape');
        },
      );
      // Back to the page's start, so the managed box is where a Tab from the top reaches it.
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    },
    click: (id) => page.click(`#${id}`),
    async tabAndSpace(n) {
      for (let i = 0; i < n; i++) await page.keyboard.press('Tab');
      await page.keyboard.press('Space');
    },
    async close() {
      await browser.close().catch(() => {});
      after();
    },
  };
}

async function launchPuppeteer(kind: Framework): Promise<FrameworkBot> {
  const headed = kind === 'puppeteer-headed';
  const display = headed ? await openDisplay() : undefined;
  const lib =
    kind === 'rebrowser'
      ? rebrowser
      : kind === 'stealth'
        ? (() => {
            const extra = addExtra(puppeteer);
            extra.use(StealthPlugin());
            return extra;
          })()
        : puppeteer;
  try {
    const browser = (await lib.launch({
      executablePath: CHROMIUM,
      headless: headed ? false : kind === 'puppeteer-old-headless' ? 'shell' : true,
      // Stealth sets its own User-Agent and a headed browser's has no "Headless"; the others take the usual flag.
      args: kind === 'stealth' || headed ? FLAGS : [...FLAGS, UA_FLAG],
      env: display ? { ...process.env, DISPLAY: display.name } : process.env,
      timeout: 30_000,
    })) as unknown as PBrowser;
    const page = await browser.newPage();
    return puppeteerBot(kind, browser, page, () => display?.stop());
  } catch (err) {
    display?.stop();
    throw err;
  }
}

async function launchPlaywright(kind: Framework): Promise<FrameworkBot> {
  const headed = kind === 'playwright-headed';
  const display = headed ? await openDisplay() : undefined;
  try {
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: !headed,
      args: FLAGS,
      env: display ? { ...process.env, DISPLAY: display.name } : undefined,
      timeout: 30_000,
    });
    const context = await browser.newContext({ userAgent: DESKTOP_UA, locale: 'en-GB' });
    const page = await context.newPage();
    return {
      kind,
      async visit(url) {
        await page.goto(url, { timeout: 30_000 });
        await fidget(
          (x, y) => page.mouse.move(x, y, { steps: 3 }),
          async (k) => {
            await page.keyboard.press(k);
            await page.keyboard.press('Escape');
          },
        );
        await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      },
      click: (id) => page.click(`#${id}`, { timeout: 10_000 }),
      async tabAndSpace(n) {
        for (let i = 0; i < n; i++) await page.keyboard.press('Tab');
        await page.keyboard.press('Space');
      },
      async close() {
        await browser.close().catch(() => {});
        display?.stop();
      },
    };
  } catch (err) {
    display?.stop();
    throw err;
  }
}

async function launchSelenium(): Promise<FrameworkBot> {
  const options = new chrome.Options().setChromeBinaryPath(CHROMIUM);
  options.addArguments('--headless=new', ...FLAGS, UA_FLAG);
  options.excludeSwitches('enable-automation');
  const driver: WebDriver = await new Builder()
    .forBrowser('chrome')
    .setChromeOptions(options)
    .setChromeService(new chrome.ServiceBuilder(CHROMEDRIVER))
    .build();
  const keys = async (...k: string[]) => {
    await driver
      .actions()
      .sendKeys(...k)
      .perform();
  };
  return {
    kind: 'selenium',
    async visit(url) {
      await driver.get(url);
      const actions = driver.actions();
      for (let m = 0; m < 6; m++) actions.move({ x: 40 + m * 37, y: 60 + m * 13 });
      await actions.perform();
      await keys(Key.TAB, Key.ESCAPE);
      await sleep(1600);
      await driver.executeScript('document.activeElement && document.activeElement.blur()');
    },
    async click(id) {
      await driver.findElement(By.id(id)).click();
    },
    async tabAndSpace(n) {
      await keys(...Array.from({ length: n }, () => Key.TAB), Key.SPACE);
    },
    async close() {
      await driver.quit().catch(() => {});
    },
  };
}

/** Launches `kind` with one page (every launch has a deadline of 30 s). */
export function launchFramework(kind: Framework): Promise<FrameworkBot> {
  if (kind.startsWith('playwright')) return launchPlaywright(kind);
  if (kind === 'selenium') return launchSelenium();
  return launchPuppeteer(kind);
}
