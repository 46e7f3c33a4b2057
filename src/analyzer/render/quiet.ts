/**
 * When a rendered page has stopped moving, by Lighthouse's rule (`waitForFullyLoaded` in
 * Lighthouse 12's gather/driver/wait-for-condition.js):
 *
 *   - at least {@link quietRule.afterLoadMs} after the load event;
 *   - the network quiet for {@link quietRule.networkQuietMs}: at most two requests in flight,
 *     and none of the page's own (main-frame) requests that Lighthouse counts as critical;
 *   - then the main thread quiet for {@link quietRule.cpuQuietMs}: no long task ended within it;
 *
 * or the longest wait passed. The wait ends as soon as those hold, so a quiet page costs one
 * second after load and a busy one at most its wait.
 *
 * Where we differ: Lighthouse calls a request critical by its Chromium priority (High or
 * VeryHigh); Playwright does not expose priorities, so every main-frame request except media,
 * EventSource and WebSocket counts here (a slow low-priority image may keep us waiting longer,
 * never shorter). Lighthouse with real (non-simulated) throttling widens its three windows to
 * 5.25 s so that it can find Time to Interactive; we keep the 1 s of its default settings.
 */
import type { Page, Request } from 'playwright-core';
import { msSinceLastLongTask } from './collect.ts';

/** Lighthouse 12's defaults: pauseAfterLoadMs, networkQuietThresholdMs, cpuQuietThresholdMs. */
export const quietRule = { afterLoadMs: 1000, networkQuietMs: 1000, cpuQuietMs: 1000 } as const;

/** Long-lived by design: never counted as critical (Lighthouse leaves out EventSource and WebSocket). */
const longLived = new Set(['eventsource', 'websocket', 'media']);

/** Requests in flight, and since when the network has been quiet. Fed by the page's request events. */
export class NetworkActivity {
  #all = 0;
  #critical = 0;
  readonly #criticalRequests = new WeakSet<Request>();
  /** Last time more than two requests, or any critical one, were in flight (performance.now()). */
  #lastBusy = performance.now();
  readonly #page: Page;

  constructor(page: Page) {
    this.#page = page;
  }

  /** A request started. */
  started(req: Request): void {
    this.#all++;
    if (this.#isCritical(req)) {
      this.#criticalRequests.add(req);
      this.#critical++;
    }
    this.#mark();
  }

  /** A request finished or failed. */
  ended(req: Request): void {
    this.#mark();
    this.#all = Math.max(0, this.#all - 1);
    if (this.#criticalRequests.delete(req)) this.#critical = Math.max(0, this.#critical - 1);
  }

  /** Requests in flight now. */
  get inflight(): number {
    return this.#all;
  }

  /** How long the network has been quiet, ms (0 while it is busy). */
  quietForMs(now = performance.now()): number {
    this.#mark(now);
    return now - this.#lastBusy;
  }

  #mark(now = performance.now()): void {
    if (this.#all > 2 || this.#critical > 0) this.#lastBusy = now;
  }

  #isCritical(req: Request): boolean {
    if (longLived.has(req.resourceType())) return false;
    try {
      return req.frame() === this.#page.mainFrame();
    } catch {
      return false; // a service worker's request has no frame
    }
  }
}

/**
 * Wait until `page` is quiet by {@link quietRule}, measured from `loadedAt` (performance.now()
 * when the load event came), or until `untilMs`. Resolves either way; never throws for the page.
 */
export async function waitUntilQuiet(
  page: Page,
  network: NetworkActivity,
  loadedAt: number,
  untilMs: number,
): Promise<void> {
  while (performance.now() < untilMs) {
    const now = performance.now();
    if (now - loadedAt >= quietRule.afterLoadMs && network.quietForMs(now) >= quietRule.networkQuietMs) {
      // Asked of the page only once the rest holds: one evaluate per poll at most.
      const cpuQuiet = await msSinceLastLongTask(page);
      if (cpuQuiet >= quietRule.cpuQuietMs) return;
    }
    await page.waitForTimeout(50);
  }
}
