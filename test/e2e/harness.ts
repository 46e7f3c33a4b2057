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
 * Context options for the "natural" flows. `human`: a desktop UA, a window on a larger
 * screen, and (with hideWebdriver) navigator.webdriver false, as in a browser nobody
 * automates; otherwise headless Chromium as it is. Tests about the score itself drive a real
 * person's browser instead (test/adversary/person.test.ts).
 */
export function contextOptions(opts: { human?: boolean; dark?: boolean } = {}): BrowserContextOptions {
  return {
    colorScheme: opts.dark ? 'dark' : 'light',
    viewport: { width: 900, height: 800 },
    ...(opts.human ? { userAgent: DESKTOP_UA, screen: { width: 1920, height: 1080 } } : {}),
  };
}

/** Hides the automation flag, as a page in a browser nobody drives would see it. */
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
    elsewhere: { sitekey: elsewhere.site.sitekey, secret: elsewhere.secret },
    demo,
    async close() {
      await pages.close();
      await server.close();
      await services.cleanup();
    },
  };
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
