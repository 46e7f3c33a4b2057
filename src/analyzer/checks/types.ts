/**
 * Shapes shared by all checks: categories, results, and the definition a check module exports.
 */
import type { PageContext } from '../page.ts';
import { checkIdentity, type CheckId, type CheckIdentity } from './definitions.ts';

/** The report sections phpRank has; every report has them. */
export type PageCategory = 'seo' | 'performance' | 'security' | 'miscellaneous';

/**
 * The report sections: phpRank's, plus `accessibility` (rendered pages only; scored apart, see
 * checks/accessibility.ts).
 */
export type CheckCategory = PageCategory | 'accessibility';

/** An analysis' checks by section; `accessibility` only when the page was rendered. */
export type ResultsByCategory = Record<PageCategory, CheckResult[]> & Partial<Record<'accessibility', CheckResult[]>>;

/** How much a check weighs in the score (weights in scoring.ts). */
export type Importance = 'high' | 'medium' | 'low';

/** One check's verdict as reported. */
export interface CheckResult {
  id: string;
  category: CheckCategory;
  importance: Importance;
  passed: boolean;
  /** The measured value (a count, a size, the title text...). */
  value: unknown;
  /** Offending elements or reasons, at most {@link maxDetails}. */
  details: unknown[];
}

/** What a check's `run` returns. */
export interface CheckOutcome {
  passed: boolean;
  value: unknown;
  details?: unknown[];
}

/** A check: its identity (definitions.ts) plus a pure function of the page. */
export interface CheckDefinition extends CheckIdentity {
  run(page: PageContext): CheckOutcome;
}

/** Most details kept per check. */
export const maxDetails = 20;

/** Run one check; a throwing check fails with the error as its only detail. */
export function runCheck(check: CheckDefinition, page: PageContext): CheckResult {
  let outcome: CheckOutcome;
  try {
    outcome = check.run(page);
  } catch (err) {
    outcome = {
      passed: false,
      value: null,
      details: [`check failed: ${err instanceof Error ? err.message : String(err)}`],
    };
  }
  const details = outcome.details ?? [];
  return {
    id: check.id,
    category: check.category,
    importance: check.importance,
    passed: outcome.passed,
    value: outcome.value,
    details: details.length > maxDetails ? details.slice(0, maxDetails) : details,
  };
}

/** The implementation of check `id`; its category and importance come from definitions.ts. */
export function defineCheck(id: CheckId, run: (page: PageContext) => CheckOutcome): CheckDefinition {
  return { ...checkIdentity(id), run };
}
