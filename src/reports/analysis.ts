import {
  AnalysisPool,
  AnalyzeError,
  SaturatedError,
  analyzeUrl,
  defaultAnalyzerOptions,
  type AnalysisResult,
  type AnalyzerOptions,
} from '../analyzer/index.ts';
import type { Config } from '../config.ts';
import { AppError, validationError } from '../errors.ts';
import type { Metrics } from '../metrics.ts';

/** Runs analyses for the reports API with bounded concurrency and maps failures to AppErrors. */
export interface ReportAnalyzer {
  analyze(url: string): Promise<AnalysisResult>;
  readonly pool: AnalysisPool;
}

export function analyzerOptionsFrom(config: Config): AnalyzerOptions {
  const base = defaultAnalyzerOptions();
  return defaultAnalyzerOptions({
    allowPrivate: config.ANALYZER_ALLOW_PRIVATE,
    totalTimeoutMs: config.ANALYZER_TIMEOUT_MS,
    maxBodyBytes: config.ANALYZER_MAX_BYTES,
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
  const timed = async (url: string) => {
    const started = performance.now();
    let outcome = 'error';
    try {
      const result = await analyzeUrl(url, options);
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
        if (err instanceof AnalyzeError) throw validationError('url', err.message, 'ERR_ANALYSIS_FAILED');
        throw err;
      }
    },
  };
}
