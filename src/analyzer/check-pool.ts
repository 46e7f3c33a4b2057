/**
 * The worker-thread pool that runs the checks of each page (piscina), so that no page, however
 * hostile, can hold the event loop: parsing and every check run in a worker, under a CPU
 * budget per analysis; past it the worker is terminated and the analysis fails with
 * `check_budget`, and the pool replaces the thread.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import type { CheckInput, CheckResults } from './check-worker.ts';
import type { LinkResult, LinkTask } from './links.ts';
import { AnalyzeError, checkBudgetError } from './errors.ts';

/** How the pool is built. */
export interface CheckPoolOptions {
  /** Worker threads at most (the service uses `ANALYZER_CONCURRENCY`). */
  threads: number;
  /** Threads started at once and kept (default 1, at most `threads`). */
  minThreads?: number;
  /** Heap limit of each worker, MB (default 1024); a page needing more fails its analysis. */
  maxHeapMb?: number;
}

/**
 * The worker module, chosen by this module's own extension (as src/bundles.ts and
 * pow/compile.ts choose): compiled, the `check-worker.js` beside this file, run by plain Node
 * (tsx need not be installed); from the sources (tsx, vitest), `check-worker.ts` through tsx's
 * loader. A missing worker module fails here, at the pool's construction.
 */
function workerEntry(): { filename: string; execArgv: string[] } {
  const compiled = import.meta.url.endsWith('.js');
  const source = new URL('./check-worker.ts', import.meta.url);
  const worker = compiled ? new URL('./check-worker.js', import.meta.url) : source;
  if (!existsSync(fileURLToPath(worker))) throw new Error(`${fileURLToPath(worker)} is missing: run npm run build`);
  if (compiled) return { filename: worker.href, execArgv: [] };
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return { filename: worker.href, execArgv: ['--import', tsx] };
}

/** Runs page checks in worker threads, each run under a time budget. */
export class CheckPool {
  readonly #piscina: Piscina<object, unknown>;
  #closed = false;

  constructor(options: CheckPoolOptions) {
    const { filename, execArgv } = workerEntry();
    const threads = Math.max(1, Math.floor(options.threads));
    this.#piscina = new Piscina({
      filename,
      execArgv,
      minThreads: Math.min(threads, Math.max(1, options.minThreads ?? 1)),
      maxThreads: threads,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb ?? 1024 },
    });
  }

  /** Worker threads running now. */
  get threads(): number {
    return this.#piscina.threads.length;
  }

  /**
   * Run the checks of `page` in a worker. The budget (ms) counts from the moment a worker
   * starts the task; past it the worker is terminated and this rejects with the
   * `check_budget` AnalyzeError. When `signal` aborts first, the worker is terminated too and
   * this rejects with the signal's reason.
   */
  async run(page: CheckInput, budgetMs: number, signal?: AbortSignal): Promise<CheckResults> {
    return this.#run<CheckResults>({ page }, undefined, budgetMs, signal);
  }

  /**
   * A crawl's read of a page's links or a sitemap ({@link readLinks}) in a worker, under the
   * same budget rules as {@link run}: the read stops itself at its `softBudgetMs`; past
   * `budgetMs` its worker is terminated and this rejects with the `check_budget` AnalyzeError.
   */
  async links(task: LinkTask, budgetMs: number, signal?: AbortSignal): Promise<LinkResult> {
    return this.#run<LinkResult>({ links: task }, 'links', budgetMs, signal);
  }

  async #run<T>(payload: object, name: string | undefined, budgetMs: number, signal?: AbortSignal): Promise<T> {
    if (this.#closed) throw new Error('The check pool is closed.');
    signal?.throwIfAborted();
    const abort = new AbortController();
    const channel = new MessageChannel();
    let timer: NodeJS.Timeout | undefined;
    channel.port1.once('message', () => {
      timer = setTimeout(() => abort.abort(checkBudgetError(budgetMs)), Math.max(1, budgetMs));
    });
    const onAbort = (): void => abort.abort(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return (await this.#piscina.run(
        { ...payload, started: channel.port2 },
        { transferList: [channel.port2], signal: abort.signal, ...(name ? { name } : {}) },
      )) as T;
    } catch (err) {
      if (abort.signal.aborted) throw abort.signal.reason;
      throw new AnalyzeError('check_budget', 'The page could not be checked within the resources of one analysis.', {
        cause: err,
      });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      channel.port1.close();
    }
  }

  /** Terminate every worker; running checks are abandoned. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#piscina.destroy();
  }
}
