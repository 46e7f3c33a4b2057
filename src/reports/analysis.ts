// Values come from the modules that hold them, types from the analyzer's public interface: its
// barrel loads the whole engine, which startEngine() brings in on the first analysis.
import type { AnalysisResult, AnalyzerOptions, TargetUrl } from '../analyzer/index.ts';
import { AnalyzeError } from '../analyzer/errors.ts';
import type { LinkResult, LinkTask } from '../analyzer/links.ts';
import { defaultAnalyzerOptions } from '../analyzer/options.ts';
import { FairPool, SaturatedError, TenantLimitError } from '../analyzer/pool.ts';
import type { Config } from '../config.ts';
import { AppError, validationError } from '../errors.ts';
import type { Metrics } from '../metrics.ts';
import { safeBrowsingCheck, type SafeBrowsingOptions } from './gsb.ts';
import type { SharedSlots } from './shared-slots.ts';
import type { StoredAnalysis } from './reports.ts';
import { scoreOf, toReportResults } from './results.ts';
import { storedUrl } from './urls.ts';

/**
 * Runs analyses for the reports API with bounded concurrency and maps failures to AppErrors.
 * An analysis comes back as a report stores it: phpRank's results (with `gsb` when an API key
 * is configured), scored with the configured weights, and `url` in phpRank's form.
 */
export interface ReportAnalyzer {
  /**
   * `render` (the request's render=0|1) overrides ANALYZER_RENDER's choice for this page.
   * `tenant` (the API key's account) is whose share of the analyzer the analysis takes.
   * `signal` (the request's: its client went away) abandons the analysis: it leaves its queue
   * or stops where it is, frees its slots, and rejects with the signal's reason.
   */
  analyze(url: TargetUrl, opts: { tenant: string; render?: boolean; signal?: AbortSignal }): Promise<StoredAnalysis>;
  readonly pool: FairPool;
  /**
   * A crawl's read of links or a sitemap, in the check workers (never on the event loop), under
   * ANALYZER_CHECK_BUDGET_MS; the read stops itself with what it has at half of it.
   */
  links(task: Omit<LinkTask, 'softBudgetMs'>, signal?: AbortSignal): Promise<LinkResult>;
  /** Stops the check workers and the shared browser, if rendering started one (services.close()). */
  close(): Promise<void>;
}

/** The importance weights reports are scored with: the defaults, overridden by ANALYZER_WEIGHTS. */
export function scoringWeights(config: Pick<Config, 'ANALYZER_WEIGHTS'>): AnalyzerOptions['weights'] {
  return { ...defaultAnalyzerOptions().weights, ...(config.ANALYZER_WEIGHTS ?? {}) };
}

export function analyzerOptionsFrom(config: Config): AnalyzerOptions {
  const base = defaultAnalyzerOptions();
  return defaultAnalyzerOptions({
    allowPrivate: config.ANALYZER_ALLOW_PRIVATE,
    totalTimeoutMs: config.ANALYZER_TIMEOUT_MS,
    maxBodyBytes: config.ANALYZER_MAX_BYTES,
    checkBudgetMs: config.ANALYZER_CHECK_BUDGET_MS,
    resolver: {
      ...base.resolver,
      servers: config.ANALYZER_DNS_SERVERS ?? [],
      queryTimeoutMs: config.ANALYZER_DNS_TIMEOUT_MS,
      tries: config.ANALYZER_DNS_TRIES,
      maxNames: config.ANALYZER_MAX_HOSTS,
    },
    thresholds: { ...base.thresholds, ...(config.ANALYZER_THRESHOLDS ?? {}) },
    weights: scoringWeights(config),
  });
}

/** What a {@link createReportAnalyzer} may be given besides the config. */
export interface ReportAnalyzerParts {
  /** The analyzer's options (default: from the config). */
  options?: AnalyzerOptions;
  metrics?: Pick<Metrics, 'observeAnalysis'>;
  /** Where the analyzer says once that rendering is off or unbounded (sandbox, cgroup). */
  warn?: (message: string) => void;
  /**
   * The key slots every instance shares ({@link SharedSlots}): each analysis holds one while it
   * runs. Without them a key's share holds in this process only.
   */
  slots?: SharedSlots;
}

/**
 * A URL that cannot be analysed is the client's input problem: a 422 on `url` saying why.
 * A saturated pool is ours: 503 with Retry-After, rather than an unbounded queue. An analysis
 * runs in this process, in a slot of its key's share of this instance's pool, and, with
 * `slots`, in one of its key's slots across every instance, which it may wait for.
 */
export function createReportAnalyzer(config: Config, parts: ReportAnalyzerParts = {}): ReportAnalyzer {
  const { options = analyzerOptionsFrom(config), metrics, warn, slots } = parts;
  const gsb: SafeBrowsingOptions | undefined = config.GSB_API_KEY
    ? { apiKey: config.GSB_API_KEY, baseUrl: config.GSB_BASE_URL }
    : undefined;
  const pool = new FairPool({
    concurrency: config.ANALYZER_CONCURRENCY,
    maxQueue: config.ANALYZER_QUEUE,
    perTenantConcurrency: Math.min(config.ANALYZER_KEY_CONCURRENCY, config.ANALYZER_CONCURRENCY),
    perTenantQueue: config.ANALYZER_KEY_QUEUE,
    maxWaitMs: config.ANALYZER_KEY_WAIT_MS,
  });
  // The engine (fetcher, HTML parser, check workers, browser driver) is loaded and started on
  // the first analysis, not with the service: a process that only serves CAPTCHAs or lists
  // reports never carries it, and a start does not wait for it.
  let engine: Promise<AnalysisEngine> | undefined;
  const loadEngine = () =>
    (engine ??= startEngine(config, options, warn).catch((err: unknown) => {
      engine = undefined; // a later analysis tries again
      throw err;
    }));
  const timed = async (url: TargetUrl, tenant: string, render?: boolean, signal?: AbortSignal) => {
    const started = performance.now();
    let outcome = 'error';
    try {
      const { analyze, renderer, analyzerOptions } = await loadEngine();
      signal?.throwIfAborted();
      const result = renderer
        ? await renderer.analyze(url, analyzerOptions, render, signal, tenant)
        : await analyze(url, analyzerOptions, signal);
      outcome = 'ok';
      return result;
    } catch (err) {
      if (signal?.aborted) outcome = 'abandoned';
      else if (err instanceof AnalyzeError) outcome = err.reason;
      throw err;
    } finally {
      metrics?.observeAnalysis(outcome, (performance.now() - started) / 1000);
    }
  };
  return {
    pool,
    async links(task, signal) {
      const { analyzerOptions } = await loadEngine();
      const budgetMs = options.checkBudgetMs;
      return analyzerOptions.checkPool!.links({ ...task, softBudgetMs: Math.ceil(budgetMs / 2) }, budgetMs, signal);
    },
    close: async () => {
      const started = await engine?.catch(() => undefined);
      if (!started) return;
      await started.renderer?.close();
      if (!options.checkPool) await started.analyzerOptions.checkPool?.close();
    },
    async analyze(url, opts) {
      const { tenant, signal } = opts;
      let analysis;
      try {
        // One wait budget (ANALYZER_KEY_WAIT_MS) for a place in this instance and a slot across instances.
        const queued = performance.now();
        analysis = await pool.run(
          tenant,
          async () => {
            const waitMs = Math.max(1, config.ANALYZER_KEY_WAIT_MS - (performance.now() - queued));
            const lease = await slots?.acquire(tenant, { signal, waitMs });
            try {
              return await timed(url, tenant, opts.render, signal);
            } finally {
              await lease?.release();
            }
          },
          signal,
        );
      } catch (err) {
        // The client went away: nobody reads the answer; the analysis stopped with its reason.
        if (signal?.aborted) throw signal.reason;
        if (err instanceof TenantLimitError) {
          throw new AppError('ERR_ANALYZER_KEY_BUSY', `This API key's share of the analyzer is taken: ${err.message}`, {
            retryAfter: err.retryAfterSeconds,
          });
        }
        if (err instanceof SaturatedError) {
          throw new AppError('ERR_ANALYZER_BUSY', 'The analyzer is busy; try again shortly.', {
            retryAfter: err.retryAfterSeconds,
          });
        }
        if (err instanceof AnalyzeError) {
          // The analyzer's reason (check_budget, timeout, forbidden_address...) is the body's `reason`.
          throw validationError('url', err.message, { code: 'ERR_ANALYSIS_FAILED', reason: err.reason });
        }
        throw err;
      }
      const results = toReportResults(analysis.results);
      if (gsb) {
        const entry = await safeBrowsingCheck(analysis.finalUrl, gsb);
        if (entry) results['gsb'] = entry;
      }
      const { score, result } = scoreOf(results, options.weights);
      return {
        url: storedUrl(analysis.finalUrl),
        fullUrl: analysis.finalUrl,
        project: analysis.project,
        score,
        result,
        results,
      };
    },
  };
}

interface AnalysisEngine {
  /** analyzeUrl: a plain function, held as a property so it is never called on the engine object. */
  analyze: (url: TargetUrl, options: AnalyzerOptions, signal?: AbortSignal) => Promise<AnalysisResult>;
  /** Set when rendering is on (ANALYZER_RENDER); it falls back to analyzeUrl by itself. */
  renderer?: {
    analyze(
      url: TargetUrl,
      options: AnalyzerOptions,
      render?: boolean,
      signal?: AbortSignal,
      tenant?: string,
    ): Promise<AnalysisResult>;
    close(): Promise<void>;
  };
  /** The options with the check pool in them. */
  analyzerOptions: AnalyzerOptions;
}

async function startEngine(
  config: Config,
  options: AnalyzerOptions,
  warn?: (message: string) => void,
): Promise<AnalysisEngine> {
  const [{ analyzeUrl, CheckPool }, { renderingAnalyzerFrom }] = await Promise.all([
    import('../analyzer/index.ts'),
    import('../analyzer/render/index.ts'),
  ]);
  // Checks run in worker threads, one per running analysis at most (unless the caller gave a pool).
  const checkPool = options.checkPool ?? new CheckPool({ threads: config.ANALYZER_CONCURRENCY });
  return {
    analyze: analyzeUrl,
    renderer: renderingAnalyzerFrom(config, warn),
    analyzerOptions: { ...options, checkPool },
  };
}
