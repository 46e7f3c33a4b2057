import {
  AnalysisPool,
  AnalyzeError,
  CheckPool,
  SaturatedError,
  analyzeUrl,
  defaultAnalyzerOptions,
  type AnalyzerOptions,
} from '../analyzer/index.ts';
import { renderingAnalyzerFrom } from '../analyzer/render/index.ts';
import type { Config } from '../config.ts';
import { AppError, validationError } from '../errors.ts';
import type { Metrics } from '../metrics.ts';
import { safeBrowsingCheck, type SafeBrowsingOptions } from './gsb.ts';
import type { StoredAnalysis } from './reports.ts';
import { scoreOf, toReportResults } from './results.ts';
import { storedUrl } from './urls.ts';

/**
 * Runs analyses for the reports API with bounded concurrency and maps failures to AppErrors.
 * An analysis comes back as a report stores it: phpRank's results (with `gsb` when an API key
 * is configured), scored with the configured weights, and `url` in phpRank's form.
 */
export interface ReportAnalyzer {
  /** `render` (the request's render=0|1) overrides ANALYZER_RENDER's choice for this page. */
  analyze(url: string, opts?: { render?: boolean }): Promise<StoredAnalysis>;
  readonly pool: AnalysisPool;
  /** Stops the check workers and the shared browser, if rendering started one (services.close()). */
  close(): Promise<void>;
}

export function analyzerOptionsFrom(config: Config): AnalyzerOptions {
  const base = defaultAnalyzerOptions();
  return defaultAnalyzerOptions({
    allowPrivate: config.ANALYZER_ALLOW_PRIVATE,
    totalTimeoutMs: config.ANALYZER_TIMEOUT_MS,
    maxBodyBytes: config.ANALYZER_MAX_BYTES,
    checkBudgetMs: config.ANALYZER_CHECK_BUDGET_MS,
    thresholds: { ...base.thresholds, ...(config.ANALYZER_THRESHOLDS ?? {}) },
    weights: { ...base.weights, ...(config.ANALYZER_WEIGHTS ?? {}) },
  });
}

/**
 * A URL that cannot be analysed is the client's input problem: a 422 on `url` saying why.
 * A saturated pool is ours: 503 with Retry-After, rather than an unbounded queue.
 */
export function createReportAnalyzer(
  config: Config,
  options: AnalyzerOptions = analyzerOptionsFrom(config),
  metrics?: Pick<Metrics, 'observeAnalysis'>,
): ReportAnalyzer {
  const gsb: SafeBrowsingOptions | undefined = config.GSB_API_KEY
    ? { apiKey: config.GSB_API_KEY, baseUrl: config.GSB_BASE_URL }
    : undefined;
  const pool = new AnalysisPool(config.ANALYZER_CONCURRENCY, config.ANALYZER_QUEUE);
  // Checks run in worker threads, one per running analysis at most, started with the service.
  const checkPool = options.checkPool ?? new CheckPool({ threads: config.ANALYZER_CONCURRENCY });
  const analyzerOptions: AnalyzerOptions = { ...options, checkPool };
  const renderer = renderingAnalyzerFrom(config);
  const timed = async (url: string, render?: boolean) => {
    const started = performance.now();
    let outcome = 'error';
    try {
      const result = renderer
        ? await renderer.analyze(url, analyzerOptions, render)
        : await analyzeUrl(url, analyzerOptions);
      outcome = 'ok';
      return result;
    } catch (err) {
      if (err instanceof AnalyzeError) outcome = err.reason;
      throw err;
    } finally {
      metrics?.observeAnalysis(outcome, (performance.now() - started) / 1000);
    }
  };
  return {
    pool,
    close: async () => {
      await renderer?.close();
      if (!options.checkPool) await checkPool.close();
    },
    async analyze(url, opts) {
      let analysis;
      try {
        analysis = await pool.run(() => timed(url, opts?.render));
      } catch (err) {
        if (err instanceof SaturatedError) {
          throw new AppError('UNAVAILABLE', 'The analyzer is busy; try again shortly.', {
            code: 'ERR_ANALYZER_BUSY',
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
      return { url: storedUrl(analysis.finalUrl), project: analysis.project, score, result, results };
    },
  };
}
