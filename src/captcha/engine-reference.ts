import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { generateText, MAX_PROBE_USES, UNCHECKED, type ProbeBox } from './env-proof.ts';
import { createRng } from './render.ts';

/** A challenge's paragraph and the values a real engine measured for it. */
export interface LayoutReference {
  probe: ProbeBox;
  values: number[];
}

/** Where challenges take their environment-proof layouts from. */
export interface ReferenceSource {
  /** A layout with its values; undefined when no engine can measure one. */
  take(): Promise<LayoutReference | undefined>;
  /** Measures the first batch now, if none is ready (the first challenge need not wait for the browser). */
  warm(): Promise<void>;
  close(): Promise<void>;
}

/** The batch measured while a challenge waits: a few paragraphs, so it waits little. */
const SMALL_BATCH = 24;

interface Entry extends LayoutReference {
  uses: number;
}

export interface EngineReferenceOptions {
  /** The Chromium to measure in (the service's own, sandboxed: analyzer/render/browser.ts). */
  browser: () => Promise<Browser>;
  /** The measurement script (the widget's env-probes.js bundle). */
  measureScript: () => Promise<string>;
  /** Paragraphs drawn and measured per page load (about a third are kept). */
  batch?: number;
  /** Below this many layouts left, a new batch is measured in the background. */
  lowWater?: number;
  /** How long a challenge waits for a batch when none is left. */
  waitMs?: number;
  /** After a failed batch, how long until the next try. */
  retryMs?: number;
  /** Called once by close(), after the last batch: stops the browser. */
  release?: () => Promise<void>;
  warn?: (message: string) => void;
}

/**
 * Reference values for the environment proof (env-proof.ts), measured in the service's own
 * Chromium: a batch of fresh layouts laid out in one page, each handed to at most
 * {@link MAX_PROBE_USES} challenges, the next batch measured in the background when few are
 * left. A challenge that finds none left waits for a small batch (the first also waits for the
 * browser to start, about a second), at most `waitMs`, then goes without (its token cannot
 * earn the environment proof). Where Chromium cannot start, every take answers undefined at
 * once until `retryMs` has passed.
 */
export class EngineReference implements ReferenceSource {
  readonly #opts: Required<Omit<EngineReferenceOptions, 'warn' | 'release'>> &
    Pick<EngineReferenceOptions, 'warn' | 'release'>;
  #pool: Entry[] = [];
  #filling?: Promise<void>;
  #failedUntil = 0;
  #warned = false;
  #closed = false;

  constructor(opts: EngineReferenceOptions) {
    this.#opts = { batch: 96, lowWater: 32, waitMs: 15_000, retryMs: 60_000, ...opts };
  }

  /** Layouts ready now (tests and metrics). */
  get available(): number {
    return this.#pool.length;
  }

  async warm(): Promise<void> {
    if (this.#pool.length === 0) await this.#refill(this.#opts.batch);
  }

  async take(): Promise<LayoutReference | undefined> {
    if (this.#pool.length === 0) {
      // Someone is waiting: a small batch, done soon, then full ones in the background.
      const filling = this.#refill(Math.min(SMALL_BATCH, this.#opts.batch));
      if (filling) await Promise.race([filling, new Promise((r) => setTimeout(r, this.#opts.waitMs).unref())]);
    }
    const entry = this.#pool[this.#pool.length - 1];
    if (!entry) return undefined;
    if (++entry.uses >= MAX_PROBE_USES) this.#pool.pop();
    if (this.#pool.length < this.#opts.lowWater) void this.#refill();
    return { probe: entry.probe, values: entry.values };
  }

  /** Starts a batch of `size` unless one is running or the engine failed lately; resolves when it ends. */
  #refill(size = this.#opts.batch): Promise<void> | undefined {
    if (this.#closed || Date.now() < this.#failedUntil) return undefined;
    this.#filling ??= this.#measureBatch(size)
      .then((entries) => {
        this.#pool = [...entries, ...this.#pool];
      })
      .catch((err: unknown) => {
        this.#failedUntil = Date.now() + this.#opts.retryMs;
        if (!this.#warned) {
          this.#warned = true;
          this.#opts.warn?.(
            `No engine for the environment proof (${err instanceof Error ? err.message : String(err)}): tokens cannot earn it, so v2 shows the image and v3 scores stay at or below 0.1 until Chromium can start.`,
          );
        }
      })
      .finally(() => {
        this.#filling = undefined;
      });
    return this.#filling;
  }

  async #measureBatch(size: number): Promise<Entry[]> {
    const rng = createRng(randomBytes(16));
    const probes = Array.from({ length: size }, () => generateText(rng));
    const [browser, script] = await Promise.all([this.#opts.browser(), this.#opts.measureScript()]);
    const context = await browser.newContext({ javaScriptEnabled: true });
    try {
      const page = await context.newPage();
      await page.setContent('<!doctype html><html><head></head><body></body></html>');
      await page.addScriptTag({ content: script });
      const measured = await page.evaluate(async (ps) => {
        const reference = (globalThis as unknown as { auditcaptchaReference: (p: unknown) => Promise<number[]> })
          .auditcaptchaReference;
        const out: number[][] = [];
        for (const p of ps) out.push(await reference(p));
        return out;
      }, probes);
      // Only paragraphs whose every line holds when laid out 3 px narrower or wider: one unstable
      // break moves every line after it (greedy line breaking), so a partly stable paragraph
      // would check little. About a third of the paragraphs drawn are kept.
      return probes
        .map((probe, i) => ({ probe, values: measured[i], uses: 0 }))
        .filter((entry) => entry.values.every((v) => v !== UNCHECKED));
    } finally {
      await context.close().catch(() => {});
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#filling;
    await this.#opts.release?.();
  }
}
