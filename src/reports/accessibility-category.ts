/**
 * The accessibility category of a stored report, as the share page, the console and site
 * audits show it: measured (its score and counts, the failing rules heaviest first), not
 * measured (rendered, but axe could not run), or needing a render (the report was not rendered).
 */
import { accessibilityOutcome, accessibilityRule, accessibilityScore } from '../analyzer/checks/accessibility-rules.ts';
import type { ReportResults, ResultEntry } from './results.ts';

/** The category of one report. */
export type AccessibilitySummary =
  | {
      status: 'measured';
      /** Lighthouse's weighted mean of the applicable rules, 0-100; null when none applies. */
      score: number | null;
      passed: number;
      failed: number;
      needs_review: number;
      not_applicable: number;
      /** Failing check ids, heaviest first. */
      failing: string[];
    }
  | { status: 'not_measured' }
  | { status: 'needs_rendering' };

/** The accessibility entries of `results`, in rule order, with their ids. */
export function accessibilityEntries(results: ReportResults | null): Array<ResultEntry & { id: string }> {
  return Object.entries(results ?? {})
    .filter(([id, e]) => e.category === 'accessibility' && accessibilityRule(id))
    .map(([id, e]) => ({ id, ...e }));
}

/** The category of stored `results`. */
export function accessibilityOf(results: ReportResults | null): AccessibilitySummary {
  const entries = accessibilityEntries(results);
  if (entries.length === 0) {
    const rendered = Object.values(results ?? {}).some((e) => e.rendered === true);
    return rendered ? { status: 'not_measured' } : { status: 'needs_rendering' };
  }
  const s = accessibilityScore(entries);
  return {
    status: 'measured',
    score: s.score,
    passed: s.passed,
    failed: s.failed,
    needs_review: s.needsReview,
    not_applicable: s.notApplicable,
    failing: s.failing,
  };
}

/** The outcome of a stored accessibility entry. */
export function entryOutcome(entry: ResultEntry & { id: string }): ReturnType<typeof accessibilityOutcome> {
  return accessibilityOutcome(entry);
}
