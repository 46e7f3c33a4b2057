/**
 * A report's category summaries, beside phpRank's keys: performance (the lab score of a
 * rendered report) and accessibility (Lighthouse's score and the rule counts), each saying
 * when it needs a render or could not be measured, so an API client does not recompute
 * Lighthouse's weighted means. Computed once when a report is stored (column `categories`).
 */
import { accessibilityOf } from './accessibility-category.ts';
import type { ReportResults } from './results.ts';
import type { ReportCategories } from '../entities/report.entity.ts';

export type { ReportCategories };

/** The summaries of stored results. */
export function categoriesOf(results: ReportResults): ReportCategories {
  const lab = results['lab_performance_score']?.value;
  const a = accessibilityOf(results);
  return {
    performance: typeof lab === 'number' ? { status: 'measured', score: lab } : { status: 'needs_rendering' },
    accessibility:
      a.status === 'measured'
        ? {
            status: 'measured',
            score: a.score,
            passed: a.passed,
            failed: a.failed,
            needs_review: a.needs_review,
            not_applicable: a.not_applicable,
          }
        : a,
  };
}
