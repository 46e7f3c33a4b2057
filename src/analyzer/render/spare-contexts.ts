/**
 * Contexts made ahead of the renders that will use them, each with its page open and its
 * renderer already running.
 *
 * A page's first paint is timed from the start of its navigation. In a context made just
 * before it, the navigation also waits for the new tab's renderer to finish starting, which
 * put 30-120 ms into the first paint of a page that paints within 100 ms (measured beside
 * Lighthouse, whose tab has been open for a while when it navigates; docs/decisions/0011).
 * A spare context is made when a render ends, so the next render starts in a renderer that
 * has been up for at least {@link warmMs}. Its proxy refuses everything until the render
 * hands it the analysis' guard (GuardedProxy.assign).
 */
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { abortable } from '../abortable.ts';
import { startGuardedProxy, type GuardedProxy, type GuardedProxySettings } from './proxy.ts';

/** How long a new tab's renderer is given to start before a render navigates in it, ms. */
export const warmMs = 500;

/** A context, its one page and the proxy its traffic goes through. */
export interface PreparedContext {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  proxy: GuardedProxy;
}

interface Spare {
  browser: Browser;
  /** The context options it was made with (a render asking for others does not take it). */
  key: string;
  /** When it is warm (performance.now() clock). */
  warmAt: number;
  prepared: Promise<PreparedContext>;
}

/** Make a context with its page behind a proxy that refuses everything for now. */
async function prepare(
  browser: Browser,
  options: BrowserContextOptions,
  refuseAll: GuardedProxySettings,
): Promise<PreparedContext> {
  const proxy = await startGuardedProxy(refuseAll);
  let context: BrowserContext | undefined;
  try {
    context = await browser.newContext({ ...options, proxy: { server: proxy.url, bypass: '<-loopback>' } });
    const page = await context.newPage();
    return { browser, context, page, proxy };
  } catch (err) {
    await context?.close().catch(() => undefined);
    await proxy.close();
    throw err;
  }
}

/** Close a prepared context and its proxy, whatever state they are in. */
export async function disposeContext(prepared: PreparedContext): Promise<void> {
  if (prepared.browser.isConnected()) {
    await Promise.race([prepared.context.close().catch(() => undefined), new Promise((r) => setTimeout(r, 5000))]);
  }
  await prepared.proxy.close();
}

/** At most `capacity` spare contexts, made in the background. */
export class SpareContexts {
  readonly #spares: Spare[] = [];
  readonly #capacity: number;
  readonly #refuseAll: () => GuardedProxySettings;

  constructor(capacity: number, refuseAll: () => GuardedProxySettings) {
    this.#capacity = capacity;
    this.#refuseAll = refuseAll;
  }

  /**
   * A warm context of `browser` made with `options`: a spare when one is there (waiting for
   * the rest of its warm-up), else a new one given its warm-up now. The pool calls
   * {@link fill} when the render ends. When `signal` aborts first, the wait ends with its
   * reason and the context, once made, is closed.
   */
  async take(browser: Browser, options: BrowserContextOptions, signal?: AbortSignal): Promise<PreparedContext> {
    const key = JSON.stringify(options);
    const i = this.#spares.findIndex((s) => s.key === key && s.browser === browser);
    let spare = i >= 0 ? this.#spares.splice(i, 1)[0] : this.#make(browser, options, key);
    try {
      let prepared = await abortable(
        spare.prepared.catch(() => undefined),
        signal,
      );
      if (!prepared || !browser.isConnected() || prepared.page.isClosed()) {
        // Its browser has stopped, or its page is gone (or it failed): start over.
        if (prepared) void disposeContext(prepared);
        spare = this.#make(browser, options, key);
        prepared = await abortable(spare.prepared, signal);
      }
      const wait = spare.warmAt - performance.now();
      if (wait > 0) await abortable(new Promise((r) => setTimeout(r, wait)), signal);
      return prepared;
    } catch (err) {
      // Given up or failed: the context, if it is ever made, is not left open.
      void spare.prepared.then(disposeContext, () => undefined);
      throw err;
    }
  }

  /** Close every spare. */
  async close(): Promise<void> {
    const spares = this.#spares.splice(0);
    await Promise.all(spares.map((s) => s.prepared.then(disposeContext, () => undefined)));
  }

  #make(browser: Browser, options: BrowserContextOptions, key: string): Spare {
    const prepared = prepare(browser, options, this.#refuseAll());
    prepared.catch(() => undefined);
    return { browser, key, warmAt: performance.now() + warmMs, prepared };
  }

  /**
   * Make spares for the next renders in `browser` with `options`, up to the capacity, replacing
   * those made with other options or in another browser. Called when a render ends, not while
   * one starts: a renderer starting beside a page's first paint takes the CPU that paint needs.
   */
  fill(browser: Browser, options: BrowserContextOptions): void {
    const key = JSON.stringify(options);
    for (let j = this.#spares.length - 1; j >= 0; j--) {
      const old = this.#spares[j];
      if (old.key !== key || old.browser !== browser) {
        this.#spares.splice(j, 1);
        void old.prepared.then(disposeContext, () => undefined);
      }
    }
    if (this.#spares.length < this.#capacity) this.#spares.push(this.#make(browser, options, key));
  }
}
