import type { AnalysisResult } from '../../src/analyzer/index.ts';

/**
 * A stored analysis of a made-up page, for seeding reports without fetching anything: lists,
 * aggregates and benchmarks are about stored reports. The grade follows the real rule.
 */
export function syntheticAnalysis(url: string, score: number): AnalysisResult {
  return {
    requestedUrl: url,
    finalUrl: url,
    project: new URL(url).hostname.replace(/^www\./, ''),
    score,
    result: score >= 80 ? 'good' : score >= 50 ? 'decent' : 'bad',
    results: { seo: [], performance: [], security: [], miscellaneous: [] },
    httpVersion: '1.1',
    status: 200,
    timings: { ttfbMs: 1, totalMs: 2 },
  } as unknown as AnalysisResult;
}
