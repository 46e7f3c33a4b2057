/**
 * Render one page in a pooled browser context behind its own guarded proxy, and gather what a
 * visitor's browser did: the rendered document, lab timings, requests and bytes, console
 * errors, mixed content and the requests the address guard refused.
 */
import type { BrowserContext, Page, Request, Response } from 'playwright-core';
import { AddressGuard } from '../address-guard.ts';
import { AnalyzeError } from '../errors.ts';
import type { AnalyzerOptions } from '../options.ts';
import type { BrowserPool } from './browser.ts';
import { collectInPage, observerScript, type InPageFacts } from './collect.ts';
import { refusedHeader, startGuardedProxy, type BlockedRequest } from './proxy.ts';

/** Limits of one render. */
export interface RenderLimits {
  /** Whole render (navigation, settling, collection), ms. */
  timeoutMs: number;
  /** Most bytes the page may pull in (document and subresources). */
  maxBytes: number;
  /** Longest quiet wait after the load event, ms. */
  settleMs: number;
}

/** One network request the page made. */
export interface NetworkEntry {
  url: string;
  /** Playwright's resource type: document, stylesheet, script, image, font, fetch, xhr... */
  type: string;
  /** Bytes on the wire (headers and body); 0 when it failed. */
  bytes: number;
  failed: boolean;
}

/** What rendering a page produced. */
export interface RenderedPage {
  finalUrl: string;
  status: number;
  html: string;
  facts: InPageFacts;
  network: NetworkEntry[];
  consoleErrors: string[];
  /** Requests to http: URLs from an https: page (loaded or blocked by the browser). */
  mixedContent: string[];
  blocked: BlockedRequest[];
  /** The load event did not come within the time limit (measurements are partial). */
  timedOut: boolean;
  /** Wall time of the render, ms. */
  elapsedMs: number;
}

const viewport = { width: 1350, height: 940 };

async function settle(
  page: Page,
  inflight: () => number,
  lastActivity: () => number,
  untilMs: number,
  quietMs = 500,
): Promise<void> {
  while (performance.now() < untilMs) {
    if (inflight() === 0 && performance.now() - lastActivity() >= quietMs) return;
    await page.waitForTimeout(50);
  }
}

/**
 * Render `url` with `pool`. Connections go through a proxy guarded by the analysis' address
 * policy (`options`), pinned per host. Rejects with {@link AnalyzeError} when the document
 * itself is refused or cannot be loaded.
 */
export async function renderPage(
  pool: BrowserPool,
  url: string,
  options: AnalyzerOptions,
  limits: RenderLimits,
): Promise<RenderedPage> {
  const started = performance.now();
  const deadline = started + limits.timeoutMs;
  // Lookups end with the render: past its limit, names still in flight are cancelled.
  const guard = new AddressGuard(options, AbortSignal.timeout(limits.timeoutMs));
  const proxy = await startGuardedProxy({
    guard,
    connectTimeoutMs: options.connectTimeoutMs,
    maxBytes: limits.maxBytes,
  });
  try {
    return await pool.withContext(proxy.url, { userAgent: options.userAgent, viewport }, async (context) => {
      // A page that wedges its renderer (an endless loop) would hang evaluate(); closing the
      // context after the limit (plus a grace period) ends every pending call.
      let hardStopped = false;
      const hardStop = setTimeout(() => {
        hardStopped = true;
        void context.close().catch(() => undefined);
      }, limits.timeoutMs + 2000);
      try {
        return await inContext(context);
      } catch (err) {
        if (hardStopped && !(err instanceof AnalyzeError)) {
          throw new AnalyzeError('timeout', `The page did not respond within ${limits.timeoutMs} ms.`, { cause: err });
        }
        throw err;
      } finally {
        clearTimeout(hardStop);
      }
    });
  } finally {
    guard.close();
    await proxy.close();
  }

  async function inContext(context: BrowserContext): Promise<RenderedPage> {
    await context.addInitScript(observerScript);
    const page = await context.newPage();
    const network: NetworkEntry[] = [];
    const sizes: Array<Promise<void>> = [];
    const consoleErrors: string[] = [];
    const mixed = new Set<string>();
    let inflight = 0;
    let lastActivity = performance.now();
    const pageIsHttps = url.startsWith('https:');
    let crashed = false;
    page.on('crash', () => {
      crashed = true;
    });
    page.on('request', (req: Request) => {
      inflight++;
      lastActivity = performance.now();
      if (pageIsHttps && req.url().startsWith('http:')) mixed.add(req.url());
    });
    const done = (req: Request, failed: boolean): void => {
      inflight = Math.max(0, inflight - 1);
      lastActivity = performance.now();
      if (network.length >= 1000) return;
      const entry: NetworkEntry = { url: req.url().slice(0, 2048), type: req.resourceType(), bytes: 0, failed };
      network.push(entry);
      if (!failed) {
        sizes.push(
          req.sizes().then(
            (s) => {
              entry.bytes = s.responseHeadersSize + s.responseBodySize;
            },
            () => undefined,
          ),
        );
      }
    };
    page.on('requestfinished', (req) => done(req, false));
    page.on('requestfailed', (req) => done(req, true));
    page.on('console', (msg) => {
      if (msg.type() !== 'error' || consoleErrors.length >= 50) return;
      const text = msg.text().slice(0, 300);
      if (/Mixed Content/i.test(text)) {
        const m = /'(http:[^']+)'/.exec(text.replace(/^.*?requested an insecure \w+ /, ''));
        if (m) mixed.add(m[1]);
      }
      consoleErrors.push(text);
    });
    page.on('pageerror', (err) => {
      if (consoleErrors.length < 50) consoleErrors.push(`Uncaught ${String(err.message ?? err).slice(0, 300)}`);
    });

    let timedOut = false;
    let status = 0;
    let finalUrl = url;
    let response: Response | null = null;
    try {
      response = await page.goto(url, { waitUntil: 'load', timeout: Math.max(1000, deadline - performance.now()) });
      status = response?.status() ?? 0;
      finalUrl = page.url();
    } catch (err) {
      if (crashed)
        throw new AnalyzeError('network', 'The page crashed the renderer (memory limit or a browser fault).', {
          cause: err,
        });
      const message = err instanceof Error ? err.message : String(err);
      if (!/Timeout/i.test(message)) {
        const refused = proxy.blocked.find((b) => url.startsWith(b.target) || b.target.startsWith(new URL(url).host));
        if (refused) throw new AnalyzeError('forbidden_address', refused.reason, { cause: err });
        throw new AnalyzeError('network', `The browser could not load the page (${message.split('\n')[0]}).`, {
          cause: err,
        });
      }
      timedOut = true;
      finalUrl = page.url();
    }
    if (finalUrl === 'about:blank') throw new AnalyzeError('timeout', 'The page did not start loading in time.');
    if (response && (await response.headerValue(refusedHeader)) !== null) {
      // The document (or a redirect it followed) went to a host the guard refused.
      const target = new URL(finalUrl);
      const refused = proxy.blocked.find((b) => b.target === `${target.origin}${target.pathname}`);
      throw new AnalyzeError(
        'forbidden_address',
        refused?.reason ?? `The page redirected to ${target.host}, which is not allowed.`,
      );
    }
    await settle(
      page,
      () => inflight,
      () => lastActivity,
      Math.min(deadline, performance.now() + limits.settleMs),
    );
    if (crashed) throw new AnalyzeError('network', 'The page crashed the renderer (memory limit or a browser fault).');
    const facts = await collectInPage(page);
    const html = await page.content();
    await Promise.race([Promise.all(sizes), new Promise((r) => setTimeout(r, 1000))]);
    return {
      finalUrl,
      status,
      html,
      facts,
      network,
      consoleErrors,
      mixedContent: [...mixed].slice(0, 50),
      blocked: [...proxy.blocked],
      timedOut,
      elapsedMs: performance.now() - started,
    };
  }
}
