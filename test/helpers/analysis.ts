import { gradeOf } from '../../src/analyzer/scoring.ts';
import type { StoredAnalysis } from '../../src/reports/reports.ts';
import { storedUrl } from '../../src/reports/urls.ts';

/**
 * A stored analysis of a made-up page, for seeding reports without fetching anything: lists,
 * aggregates and benchmarks are about stored reports. The grade follows the real rule; the
 * only check is `seo_friendly_url`, holding the full address as phpRank keeps it.
 */
export function syntheticAnalysis(url: string, score: number): StoredAnalysis {
  return {
    url: storedUrl(url),
    fullUrl: url,
    project: new URL(url).hostname.replace(/^www\./, ''),
    score,
    result: gradeOf(score),
    results: {
      seo_friendly_url: { passed: true, importance: 'high', value: url, category: 'seo', details: [] },
    },
  };
}
