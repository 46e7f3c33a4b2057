import {
  AnalysisPool,
  AnalyzeError,
  CheckPool,
  SaturatedError,
  analyzeUrl,
  defaultAnalyzerOptions,
  type AnalysisResult,
  type AnalyzerOptions,
} from '../analyzer/index.ts';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import type { Metrics } from '../metrics.ts';

/** Runs analyses for the reports API with bounded concurrency and maps failures to AppErrors. */
export interface ReportAnalyzer {
  analyze(url: string): Promise<AnalysisResult>;
  readonly pool: AnalysisPool;
  /** Stop the check workers (services.close()). */
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
  const pool = new AnalysisPool(config.ANALYZER_CONCURRENCY, config.ANALYZER_QUEUE);
  // Checks run in worker threads, one per running analysis at most, started with the service.
  const checkPool = options.checkPool ?? new CheckPool({ threads: config.ANALYZER_CONCURRENCY });
  const analyzerOptions: AnalyzerOptions = { ...options, checkPool };
  const timed = async (url: string) => {
    const started = performance.now();
    let outcome = 'error';
    try {
      const result = await analyzeUrl(url, analyzerOptions);
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
    close: () => (options.checkPool ? Promise.resolve() : checkPool.close()),
    async analyze(url) {
      try {
        return await pool.run(() => timed(url));
      } catch (err) {
        if (err instanceof SaturatedError) {
          throw new AppError('UNAVAILABLE', 'The analyzer is busy; try again shortly.', {
            code: 'ERR_ANALYZER_BUSY',
            retryAfter: err.retryAfterSeconds,
          });
        }
        if (err instanceof AnalyzeError) {
          // err.reason (check_budget, timeout, forbidden_address...) stays on the cause for the error body's code.
          throw new AppError('VALIDATION_FAILED', err.message, {
              code: 'ERR_ANALYSIS_FAILED',
              errors: { url: [err.message] },
              cause: err,
            });
        }
        throw err;
      }
    },
  };
}
