/**
 * Shapes shared by all checks: categories, results, identities, and the page check a module of
 * checks/page/ exports.
 */
import type { PageContext } from '../page.ts';
import type { ValueSpec } from './catalogue/formats.ts';
import type { CheckTexts, Locale } from './catalogue/texts.ts';

/** The report sections phpRank has; every report has them. */
export type PageCategory = 'seo' | 'performance' | 'security' | 'miscellaneous';

/**
 * The report sections: phpRank's, plus `accessibility` (rendered pages only; scored apart, see
 * checks/accessibility-rules.ts).
 */
export type CheckCategory = PageCategory | 'accessibility';

/** An analysis' checks by section; `accessibility` only when the page was rendered. */
export type ResultsByCategory = Record<PageCategory, CheckResult[]> & Partial<Record<'accessibility', CheckResult[]>>;

/** How much a check weighs in the score (weights in scoring.ts). */
export type Importance = 'high' | 'medium' | 'low';

/**
 * Where a check's verdict comes from: `page` runs on the fetched HTML and headers (every
 * report), `rendered` on the page as Chromium rendered it (reports made with render=1; a
 * rendered `http_requests` or `mixed_content` replaces the page one; the accessibility checks
 * come from axe-core in the rendered page), `safe-browsing` from a
 * Google Safe Browsing lookup (only when GSB_API_KEY is set).
 */
export type CheckSource = 'page' | 'rendered' | 'safe-browsing';

/** A check's identity. */
export interface CheckIdentity {
  readonly id: string;
  readonly category: CheckCategory;
  readonly importance: Importance;
  readonly source: CheckSource;
}

/** A check with its words in every language and the format of its value: what the catalogue lists. */
export interface DescribedCheck extends CheckIdentity {
  /** Its words by language (a `Record` over every locale, so a missing one does not compile). */
  readonly texts: Readonly<Record<Locale, CheckTexts>>;
  /** The unit and format of its value. */
  readonly value: ValueSpec;
}

/**
 * A page check: everything about it in one module of checks/page/ (its default export, the
 * file named after its id). The registry (registry.ts) finds it there; reports, the score, the
 * catalogue, `GET /api/v1/checks` and the share page take it from the registry.
 */
export interface PageCheck extends DescribedCheck {
  readonly category: PageCategory;
  readonly source: 'page';
  /**
   * Its place in report order, among every page check and `gsb` (ascending). Today's checks
   * are numbered in tens by section: seo 1010-1140, performance 2010-2110, security
   * 3010-3120 (`gsb` 3020), miscellaneous 4010-4120.
   */
  readonly order: number;
  /**
   * Whether the check reads the document, and so is run again on the page as Chromium rendered
   * it (reports made with render=1; marked `rendered: true`). Checks of headers, the URL,
   * robots.txt, the sitemap, the 404 probe and the raw bytes stay on the raw response.
   */
  readonly rendered: boolean;
  /** The measurement: a pure function of the page; a throw fails the check (runCheck). */
  run(page: PageContext): CheckOutcome;
}

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

/** Most details kept per check. */
export const maxDetails = 20;

/** Run one check; a throwing check fails with the error as its only detail. */
export function runCheck(check: PageCheck, page: PageContext): CheckResult {
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
