import {
  AnalysisPool,
  AnalyzeError,
  SaturatedError,
  analyzeUrl,
  defaultAnalyzerOptions,
  type AnalysisResult,
  type AnalyzerOptions,
} from '../analyzer/index.ts';
import { renderingAnalyzerFrom } from '../analyzer/render/index.ts';
import type { Config } from '../config.ts';
import { AppError, validationError } from '../errors.ts';
import type { Metrics } from '../metrics.ts';

/** Runs analyses for the reports API with bounded concurrency and maps failures to AppErrors. */
export interface ReportAnalyzer {
  /** `render` (the request's render=0|1) overrides ANALYZER_RENDER's choice for this page. */
  analyze(url: string, opts?: { render?: boolean }): Promise<AnalysisResult>;
  readonly pool: AnalysisPool;
  /** Closes the shared browser, if rendering started one. */
  close?(): Promise<void>;
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
  const renderer = renderingAnalyzerFrom(config);
  const timed = async (url: string, render?: boolean) => {
    const started = performance.now();
    let outcome = 'error';
    try {
      const result = renderer ? await renderer.analyze(url, options, render) : await analyzeUrl(url, options);
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
    close: async () => renderer?.close(),
    async analyze(url, opts) {
      try {
        return await pool.run(() => timed(url, opts?.render));
      } catch (err) {
        if (err instanceof SaturatedError) {
          throw new AppError('UNAVAILABLE', 'The analyzer is busy; try again shortly.', { retryAfter: err.retryAfterSeconds });
        }
        if (err instanceof AnalyzeError) throw validationError('url', err.message);
        throw err;
      }
    },
  };
}
