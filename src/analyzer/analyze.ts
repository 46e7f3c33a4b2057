/**
 * analyzeUrl: fetch the page and its auxiliary resources, parse once, run every check. The
 * score is the report's (src/reports/results.ts), computed once from all its checks.
 */
import { performance } from 'node:perf_hooks';
import type { TargetUrl } from './address-guard.ts';
import { fetchAuxiliary } from './auxiliary.ts';
import { decodeHtml } from './body.ts';
import { runPageChecks, type CheckInput } from './check-worker.ts';
import type { ResultsByCategory } from './checks/types.ts';
import { AnalyzeError, deadlineError } from './errors.ts';
import { Fetcher } from './fetcher.ts';
import { projectOf } from './project.ts';
import type { AnalyzerOptions } from './options.ts';

/** The report of one analysis. */
export interface AnalysisResult {
  requestedUrl: string;
  finalUrl: string;
  /** Host of finalUrl (with a non-default port, if any), lowercased, without a leading "www.". */
  project: string;
  results: ResultsByCategory;
  /** "2.0" when the page came over HTTP/2, else "1.1". */
  httpVersion: string;
  status: number;
  /** ttfbMs: first request to the final response's headers; totalMs: to its last body byte. */
  timings: { ttfbMs: number; totalMs: number };
}

function looksLikeHtml(text: string): boolean {
  return /^\s*</.test(text.slice(0, 1024).replace(/^\uFEFF/, ''));
}

/** Share of the deadline kept for the checks: auxiliary fetches end this long before it, at most. */
function checksReserveMs(opts: AnalyzerOptions): number {
  return Math.min(opts.checkBudgetMs, opts.totalTimeoutMs / 5);
}

/**
 * Analyze the page at `url`. Rejects with {@link AnalyzeError} when the page cannot be
 * fetched or checked (its `reason` says why), or with the abort reason when `signal` aborts.
 * The whole analysis (fetches, decoding, checks) ends by `opts.totalTimeoutMs`, wall clock:
 * past it everything under way is stopped and the analysis fails with `timeout`.
 * Auxiliary fetches (robots.txt, 404 probe, sitemap, http:// variant) never fail the
 * analysis; they only fail their checks.
 */
export async function analyzeUrl(
  requested: TargetUrl,
  opts: AnalyzerOptions,
  signal?: AbortSignal,
): Promise<AnalysisResult> {
  signal?.throwIfAborted();
  const deadlineMs = opts.totalTimeoutMs;
  const deadlineAt = performance.now() + deadlineMs;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(deadlineError(requested.href, deadlineMs)), deadlineMs);
  const bound = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal;
  const remaining = (): number => Math.max(1, deadlineAt - performance.now());
  const fetcher = new Fetcher(opts, bound);
  try {
    const response = await fetcher.fetch(requested, {
      requireHtml: true,
      requireSuccess: true,
      timeoutMs: remaining(),
    });
    const auxiliary = fetchAuxiliary(fetcher, response.url, Math.max(1, remaining() - checksReserveMs(opts)));
    auxiliary.catch(() => undefined); // observed below; avoid an unhandled rejection while decoding
    const bytes = response.body!.bytes;
    const html = decodeHtml(bytes, response.headers['content-type']);
    if (!response.headers['content-type'] && !looksLikeHtml(html)) {
      throw new AnalyzeError(
        'not_html',
        'The page is not an HTML document (no Content-Type, and the body is not markup).',
      );
    }
    const input: CheckInput = {
      url: response.url.href,
      requestedUrl: requested.href,
      html,
      status: response.status,
      headers: response.headers,
      httpVersion: response.httpVersion,
      timings: { ttfbMs: response.ttfbMs, totalMs: response.totalMs },
      transferredBytes: response.body!.transferredBytes,
      decodedBytes: response.body!.decodedBytes,
      thresholds: opts.thresholds,
      userAgent: opts.userAgent,
    };
    input.aux = await auxiliary;
    bound.throwIfAborted();
    const results = opts.checkPool ? await opts.checkPool.run(input, opts.checkBudgetMs, bound) : runPageChecks(input);
    return {
      requestedUrl: requested.href,
      finalUrl: response.url.href,
      project: projectOf(response.url),
      results,
      httpVersion: response.httpVersion,
      status: response.status,
      timings: { ttfbMs: Math.round(response.ttfbMs), totalMs: Math.round(response.totalMs) },
    };
  } catch (err) {
    if (deadline.signal.aborted && !signal?.aborted) throw deadline.signal.reason;
    throw err;
  } finally {
    clearTimeout(timer);
    await fetcher.close();
  }
}
