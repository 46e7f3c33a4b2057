/**
 * Render one page in a pooled browser context behind its own guarded proxy, and gather what a
 * visitor's browser did: the rendered document, lab timings, requests and bytes, console
 * errors, mixed content and the requests the address guard refused.
 */
import type { Request, Response } from 'playwright-core';
import { AddressGuard } from '../address-guard.ts';
import { AnalyzeError } from '../errors.ts';
import type { AnalyzerOptions } from '../options.ts';
import { deadlineSignal } from '../abortable.ts';
import { runAxe, type AxeRun } from './axe.ts';
import { RenderBusyError, type BrowserPool } from './browser.ts';
import { collectInPage, documentInPage, observerScript, type InPageFacts } from './collect.ts';
import { refusedHeader, type BlockedRequest } from './proxy.ts';
import { NetworkActivity, waitUntilQuiet } from './quiet.ts';
import type { PreparedContext } from './spare-contexts.ts';

/** Limits of one render. */
export interface RenderLimits {
  /** Whole render (navigation, settling, collection), ms. */
  timeoutMs: number;
  /** Most bytes the page may pull in (document and subresources). */
  maxBytes: number;
  /**
   * Longest wait after the load event for the page to be quiet (quiet.ts), ms; the render's
   * own limit still applies.
   */
  settleMs: number;
  /** User-Agent of the render; unset, desktop Chrome's (browser.ts). */
  userAgent?: string;
  /** Longest rendered document taken back from the page, characters (default 5 MiB). */
  maxDocumentChars?: number;
  /** Most frames (the page's own included) and workers a page may start (defaults 20 and 8). */
  maxFrames?: number;
  maxWorkers?: number;
  /** Most windows a page may open (each closed as it opens; default 5). */
  maxPopups?: number;
}

/**
 * How long past its limit a render may still hold its context: the hard stop closes a wedged
 * page's context 2 s past the limit; this bounds everything else.
 */
const renderGraceMs = 3000;

/** Events taken from a page at most (console messages, uncaught errors), however many it makes. */
const maxPageEvents = 200;

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
  /** axe-core's findings, taken right after the lab measurements (axe.ts). */
  accessibility: AxeRun;
  /** Wall time of the render, ms. */
  elapsedMs: number;
}

const viewport = { width: 1350, height: 940 };

/**
 * Render `url` with `pool`. Connections go through a proxy guarded by the analysis' address
 * policy (`options`), pinned per host. Rejects with {@link AnalyzeError} when the document
 * itself is refused or cannot be loaded. The whole render, the waits for the browser and a
 * context included, ends by `limits.timeoutMs` (plus a grace for the hard stop), and at once
 * with `bounds.signal`'s reason when it aborts (the analysis abandoned); the waits for the
 * browser's start and a context end when `bounds.waits` aborts too (the analysis' deadline).
 */
export async function renderPage(
  pool: BrowserPool,
  url: string,
  options: AnalyzerOptions,
  limits: RenderLimits,
  bounds: { waits?: AbortSignal; signal?: AbortSignal } = {},
): Promise<RenderedPage> {
  const { signal } = bounds;
  signal?.throwIfAborted();
  const started = performance.now();
  const deadline = started + limits.timeoutMs;
  const bound = deadlineSignal(
    limits.timeoutMs + renderGraceMs,
    () => new RenderBusyError(`The browser did not render the page within ${limits.timeoutMs} ms.`),
    signal,
  );
  // Lookups end with the render: past its limit, names still in flight are cancelled.
  const lookups = AbortSignal.timeout(limits.timeoutMs);
  const guard = new AddressGuard(options, signal ? AbortSignal.any([signal, lookups]) : lookups);
  const proxySettings = { guard, connectTimeoutMs: options.connectTimeoutMs, maxBytes: limits.maxBytes };
  try {
    return await pool.withContext(
      { userAgent: limits.userAgent, viewport },
      proxySettings,
      async (prepared) => {
        const { context } = prepared;
        // A page that wedges its renderer (an endless loop) would hang evaluate(); closing the
        // context after the limit (plus a grace period) ends every pending call.
        let hardStopped = false;
        const hardStop = setTimeout(() => {
          hardStopped = true;
          void context.close().catch(() => undefined);
        }, limits.timeoutMs + 2000);
        try {
          return await inContext(prepared);
        } catch (err) {
          if (hardStopped && !(err instanceof AnalyzeError)) {
            throw new AnalyzeError('timeout', `The page did not respond within ${limits.timeoutMs} ms.`, {
              cause: err,
            });
          }
          throw err;
        } finally {
          clearTimeout(hardStop);
        }
      },
      { waits: bounds.waits, signal: bound.signal },
    );
  } finally {
    bound.clear();
    guard.close();
  }

  async function inContext({ context, page, proxy }: PreparedContext): Promise<RenderedPage> {
    await context.addInitScript(observerScript);
    const network: NetworkEntry[] = [];
    const sizes: Array<Promise<void>> = [];
    const consoleErrors: string[] = [];
    const mixed = new Set<string>();
    const activity = new NetworkActivity(page);
    const pageIsHttps = url.startsWith('https:');
    let crashed = false;
    page.on('crash', () => {
      crashed = true;
    });
    // What a page may start is bounded: popups are closed as they open, and a page past its
    // frames or workers fails its render alone (render_limit), its context closed at once.
    let violation: string | undefined;
    const exceed = (what: string): void => {
      violation ??= what;
      void page.close().catch(() => undefined);
    };
    const caps = { popups: limits.maxPopups ?? 5, frames: limits.maxFrames ?? 20, workers: limits.maxWorkers ?? 8 };
    let frames = 1;
    let workers = 0;
    let popups = 0;
    context.on('page', (other) => {
      if (other === page) return;
      void other.close().catch(() => undefined);
      if (++popups > caps.popups) exceed(`The page opened more than ${caps.popups} windows.`);
    });
    page.on('frameattached', () => {
      if (++frames > caps.frames) exceed(`The page opened more than ${caps.frames} frames.`);
    });
    page.on('worker', () => {
      if (++workers > caps.workers) exceed(`The page started more than ${caps.workers} workers.`);
    });
    const limitError = (cause?: unknown): AnalyzeError | undefined => {
      if (violation) return new AnalyzeError('render_limit', violation, { cause });
      if (crashed)
        return new AnalyzeError(
          'render_limit',
          'The page used more memory than a render may (its renderer was stopped).',
          {
            cause,
          },
        );
      return undefined;
    };
    let pageEvents = 0;
    page.on('request', (req: Request) => {
      activity.started(req);
      if (pageIsHttps && req.url().startsWith('http:')) mixed.add(req.url());
    });
    const done = (req: Request, failed: boolean): void => {
      activity.ended(req);
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
      if (++pageEvents > maxPageEvents || msg.type() !== 'error' || consoleErrors.length >= 50) return;
      const text = msg.text().slice(0, 300);
      if (/Mixed Content/i.test(text)) {
        const m = /'(http:[^']+)'/.exec(text.replace(/^.*?requested an insecure \w+ /, ''));
        if (m) mixed.add(m[1]);
      }
      consoleErrors.push(text);
    });
    page.on('pageerror', (err) => {
      if (++pageEvents <= maxPageEvents && consoleErrors.length < 50)
        consoleErrors.push(`Uncaught ${String(err.message ?? err).slice(0, 300)}`);
    });

    try {
      return await navigateAndCollect();
    } catch (err) {
      throw limitError(err) ?? err;
    }

    async function navigateAndCollect(): Promise<RenderedPage> {
      let timedOut = false;
      let status = 0;
      let finalUrl = url;
      let response: Response | null = null;
      let loadedAt: number | undefined;
      try {
        response = await page.goto(url, { waitUntil: 'load', timeout: Math.max(1000, deadline - performance.now()) });
        loadedAt = performance.now();
        status = response?.status() ?? 0;
        finalUrl = page.url();
      } catch (err) {
        if (limitError()) throw err;
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
      // Observe what the page does after load until it is quiet (a page that never loaded is
      // read as it is: its render already used its time).
      if (loadedAt !== undefined) {
        await waitUntilQuiet(page, activity, loadedAt, Math.min(deadline, loadedAt + limits.settleMs));
      }
      const facts = await collectInPage(page);
      const html = await documentInPage(page, limits.maxDocumentChars ?? 5 * 1024 * 1024);
      // After the measurements and the document were taken: axe scrolls and reads layout.
      const accessibility = await runAxe(page, deadline - performance.now());
      const limited = limitError();
      if (limited) throw limited;
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
        accessibility,
        elapsedMs: performance.now() - started,
      };
    }
  }
}
