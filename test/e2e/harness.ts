/**
 * End-to-end harness: the real service in-process (test/helpers/services.ts), a page server
 * on another loopback port (another origin, as a customer's site), and Chromium driven by
 * playwright-core. Without /usr/bin/chromium the suites skip, except under CI, where they
 * fail with a message saying what to install.
 */
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContextOptions, type Locator, type Page } from 'playwright-core';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { createSite } from '../../src/captcha/sites.ts';
import { currentAnswer, type V1View } from '../../src/captcha/v1.ts';
import { ensureDemoSite, registerDemoSite, type DemoSite } from '../../src/demo/site.ts';

/** Debian's Chromium; CHROMIUM_PATH points elsewhere (never a downloaded browser). */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const chromiumMissing = !existsSync(CHROMIUM);
/** Skip only off CI; on CI a missing browser fails the suite (see requireChromium). */
export const skipE2e = chromiumMissing && !process.env.CI;

export function requireChromium(): void {
  if (chromiumMissing) {
    throw new Error(
      `End-to-end tests need Chromium at ${CHROMIUM} (Debian: apt-get install -y chromium). With CI set they fail rather than skip.`,
    );
  }
}

export function launchChromium(): Promise<Browser> {
  requireChromium();
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A desktop Chrome's User-Agent: no "HeadlessChrome", so the risk model sees a plain browser. */
export const DESKTOP_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

/**
 * Context options. `human`: a desktop UA and a window on a larger screen, the dress an
 * automated browser puts on (with hideWebdriver); the score still sees the DevTools protocol
 * under it. Otherwise headless Chromium as it is. Tests of a person's score drive a real
 * person's browser instead (test/adversary/person.test.ts).
 */
export function contextOptions(opts: { human?: boolean; dark?: boolean } = {}): BrowserContextOptions {
  return {
    colorScheme: opts.dark ? 'dark' : 'light',
    viewport: { width: 900, height: 800 },
    ...(opts.human ? { userAgent: DESKTOP_UA, screen: { width: 1920, height: 1080 } } : {}),
  };
}

/** Hides the automation flag with a patched getter (which the page's signals see as `natives_tampered`). */
export async function hideWebdriver(page: Page): Promise<void> {
  await page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'webdriver', { get: () => false }));
}

export interface Posted {
  path: string;
  fields: Record<string, string>;
}

/** Serves registered HTML pages; records form posts to /submit and answers with a small page. */
export class PageServer {
  readonly pages = new Map<string, string>();
  readonly posted: Posted[] = [];
  private server!: http.Server;
  origin = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.method === 'POST') {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', () => {
          this.posted.push({ path: url.pathname, fields: Object.fromEntries(new URLSearchParams(body)) });
          res.setHeader('Content-Type', 'text/html; charset=utf-8');
          res.end('<!doctype html><title>Received</title><h1>Received</h1>');
        });
        return;
      }
      const html = this.pages.get(url.pathname);
      res.statusCode = html ? 200 : 404;
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.end(html ?? 'not found');
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Registers a page and returns its URL. */
  page(pathname: string, html: string): string {
    this.pages.set(pathname, html);
    return this.origin + pathname;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A customer page: a form posting to /submit, the widget markup and widget.js from the service. */
export function sitePage(serviceUrl: string, widget: string, opts: { head?: string; script?: string } = {}): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test site</title>${opts.head ?? ''}
<style>body{font:16px system-ui,sans-serif;margin:24px}form{display:grid;gap:12px;justify-items:start}</style>
<script>window.events=[];function onToken(t){events.push(['token',t])}function onExpired(){events.push(['expired'])}function onError(c){events.push(['error',c])}</script>
${opts.script ?? ''}
<script src="${serviceUrl}/widget.js" async defer></script></head>
<body><form method="post" action="/submit" id="f">
<label>Name <input name="name" id="name"></label>
${widget}
<button type="submit" id="send">Send</button>
</form></body></html>`;
}

export interface Stack {
  services: TestServices;
  server: TestServer;
  pages: PageServer;
  /** A real site registered for the page server's origin. */
  site: { sitekey: string; secret: string };
  /**
   * A real site on the page server's origin whose minimum score is 0: its siteverify accepts
   * the tokens an automated browser earns (at most 0.3) and shows their score, as a site that
   * reads the score itself would.
   */
  anyScore: { sitekey: string; secret: string };
  /** A real site registered only for an origin no test page runs on. */
  elsewhere: { sitekey: string; secret: string };
  demo: DemoSite;
  close(): Promise<void>;
}

/** The service, a demo site for its own origin(s), and a page server with a registered site. */
export async function startStack(): Promise<Stack> {
  // A person's page in Chromium earns the environment proof only against the service's engine.
  const services = await openTestServices({ env: { CAPTCHA_ENGINE: 'auto' } });
  const server = await startTestServer(services);
  const pages = await new PageServer().start();
  const { user } = await createKeyedUser(services, 'e2e');
  const em = services.orm.em.fork();
  const site = await createSite(em, user.id, { name: 'Test site', origins: [pages.origin] });
  const anyScore = await createSite(em, user.id, { name: 'Any score', origins: [pages.origin], min_score: 0 });
  const elsewhere = await createSite(em, user.id, { name: 'Elsewhere', origins: ['https://elsewhere.example'] });
  const { demo } = await ensureDemoSite(em, mkdtempSync(path.join(os.tmpdir(), 'e2e-demo-')), server.server.port);
  registerDemoSite(services, demo);
  // The environment proof's engine starts with the first challenge; start it here, in set-up.
  await services.engineReference?.warm();
  return {
    services,
    server,
    pages,
    site: { sitekey: site.site.sitekey, secret: site.secret },
    anyScore: { sitekey: anyScore.site.sitekey, secret: anyScore.secret },
    elsewhere: { sitekey: elsewhere.site.sitekey, secret: elsewhere.secret },
    demo,
    async close() {
      await pages.close();
      await server.close();
      await services.cleanup();
    },
  };
}

const IMAGE_ANSWER_BOX = 'Type the characters shown in the image';

/**
 * Reads each image challenge `page` is given as a person reads it, and types the answer in.
 * These suites drive Chromium over the DevTools protocol, which the score sees (at most 0.3,
 * docs/challenges.md): the managed flow and the drop-ins' boxes give such a browser the
 * image, as they should, and the tests go on through it. The answer is the one the service
 * derives for the challenge (v1.ts `currentAnswer`); from the page only the challenge's id is
 * read, off the service's answer. Returns the ids answered, in order.
 */
export function answerImages(stack: Pick<Stack, 'services'>, page: Page): string[] {
  const answered: string[] = [];
  const challenges = /\/api\/v[12]\/challenges(?:\/[^/]+\/verify)?$/;
  page.on('response', (r) => {
    // By path alone: a page may call the service by another of its names (the demo uses localhost).
    if (r.request().method() !== 'POST' || !challenges.test(new URL(r.url()).pathname)) return;
    void answer(r).catch(() => {
      // the page navigated or closed before the image came: nothing is left to answer
    });
  });
  async function answer(r: { json(): Promise<unknown> }): Promise<void> {
    const body = (await r.json()) as { kind?: string; challenge?: string | V1View };
    const id =
      body.kind === 'v1' && typeof body.challenge === 'string'
        ? body.challenge
        : typeof body.challenge === 'object' && body.challenge?.kind === 'v1'
          ? body.challenge.challenge
          : undefined;
    if (!id) return;
    await answerImage(stack, page, id);
    answered.push(id);
  }
  return answered;
}

/** Types challenge `id`'s answer into the image's answer box in `within` (a page with one such box, or a form). */
export async function answerImage(stack: Pick<Stack, 'services'>, within: Page | Locator, id: string): Promise<void> {
  const box = within.getByRole('textbox', { name: IMAGE_ANSWER_BOX });
  await box.waitFor({ timeout: 30_000 });
  const state = await stack.services.stores.challenges.get(id);
  await box.fill(currentAnswer(stack.services.config.tokenKey!, id, state));
  await box.press('Enter');
}

/** The widget's shadow-DOM host inside `container` (Playwright locators pierce open shadow roots). */
export function widgetIn(page: Page, container = '[data-sitekey]'): Locator {
  return page.locator(`${container} .auditcaptcha-widget`);
}

const shotDir = process.env.E2E_SCREENSHOT_DIR
  ? path.resolve(process.env.E2E_SCREENSHOT_DIR)
  : path.join(os.tmpdir(), 'auditcaptcha-e2e-screenshots');

let announced = false;

/** Saves `name-light.png` and `name-dark.png` of the widget (the page's colour scheme switched live). */
export async function shoot(page: Page, widget: Locator, name: string): Promise<string[]> {
  mkdirSync(shotDir, { recursive: true });
  if (!announced) console.log(`widget screenshots: ${shotDir}`);
  announced = true;
  const files: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const file = path.join(shotDir, `${name}-${scheme}.png`);
    await widget.screenshot({ path: file, animations: 'disabled' });
    files.push(file);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return files;
}
