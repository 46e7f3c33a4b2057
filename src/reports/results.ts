/**
 * A report's `results` as phpRank stores and returns them: one object keyed by check id, each
 * entry `{passed, importance, value, errors?, category, details}`. `errors` is present only on
 * a failed check, `{<phpRank's key for that failure>: null}` (phpRank's own values vary by
 * check; ours are in `details`, not repeated, to keep lists light); `category` and `details`
 * are ours.
 */
import type { CheckCategory, CheckResult, Importance, ResultsByCategory } from '../analyzer/index.ts';
import { checkOrder } from '../analyzer/checks/definitions.ts';
import { scoreResults, type Grade } from '../analyzer/scoring.ts';

/** One check as a report stores and shows it. */
export interface ResultEntry {
  passed: boolean;
  importance: Importance;
  value: unknown;
  /** Only on a failed check: phpRank's error key (its value null; the specifics are in `details`). */
  errors?: Record<string, unknown>;
  category: CheckCategory;
  /** Offending elements or reasons (empty when passed). */
  details: unknown[];
  /** Present (true) when the check ran on the page as Chromium rendered it. */
  rendered?: true;
}

/** A report's per-check results, keyed by check id, in report order. */
export type ReportResults = Record<string, ResultEntry>;

/**
 * The key phpRank files a failed check's error under. Checks phpRank does not have (and
 * `gsb`, `robots`, `sitemap` and the security checks, as phpRank itself) use `failed`.
 */
const errorKeys: Record<string, string> = {
  meta_description: 'missing',
  content_keywords: 'missing',
  image_keywords: 'missing',
  seo_friendly_url: 'bad_format',
  '404_page': 'missing',
  noindex: 'missing',
  in_page_links: 'too_many',
  language: 'missing',
  favicon: 'missing',
  text_compression: 'missing',
  load_time: 'too_slow',
  page_size: 'too_large',
  http_requests: 'too_many',
  image_format: 'bad_format',
  defer_javascript: 'missing',
  dom_size: 'too_many',
  https_encryption: 'missing',
  structured_data: 'missing',
  meta_viewport: 'missing',
  charset: 'missing',
  social: 'missing',
  content_length: 'too_few',
  text_html_ratio: 'too_small',
  deprecated_html_tags: 'bad_tags',
};

/** title and headings name the failure as phpRank does: missing, too many, or length/duplicate. */
function errorKeyOf(check: Pick<CheckResult, 'id' | 'value' | 'details'>): string {
  if (check.id === 'title') {
    if (check.value === null || check.value === '') return 'missing';
    return check.details.some((d) => typeof d === 'string' && d.startsWith('<title>')) ? 'too_many' : 'length';
  }
  if (check.id === 'headings') {
    const h1s = Array.isArray(check.value) ? check.value.length : 0;
    return h1s === 0 ? 'missing' : h1s > 1 ? 'too_many' : 'duplicate';
  }
  return errorKeys[check.id] ?? 'failed';
}

/** One check result as a stored entry. */
export function toEntry(check: CheckResult): ResultEntry {
  return {
    passed: check.passed,
    importance: check.importance,
    value: check.value,
    ...(check.passed ? {} : { errors: { [errorKeyOf(check)]: null } }),
    category: check.category,
    details: check.details,
    // Checks run on the rendered document (src/analyzer/render) say so.
    ...('rendered' in check && check.rendered === true ? { rendered: true } : {}),
  };
}

/** The analyzer's results (arrays by category) keyed by check id, in report order. */
export function toReportResults(byCategory: ResultsByCategory): ReportResults {
  const out: ReportResults = {};
  for (const list of Object.values(byCategory)) for (const check of list) out[check.id] = toEntry(check);
  return out;
}

/** Score and grade of stored results with `weights` (the analyzer's rule). */
export function scoreOf(results: ReportResults, weights: Record<Importance, number>): { score: number; result: Grade } {
  return scoreResults(
    Object.entries(results).map(([id, e]) => ({
      id,
      category: e.category,
      importance: e.importance,
      passed: e.passed,
      value: null,
      details: [],
    })),
    weights,
  );
}

const categories: CheckCategory[] = ['seo', 'performance', 'security', 'miscellaneous'];

/**
 * Checks of stored results by category, in report order (definitions.ts; `gsb` after
 * https_encryption, as in phpRank; lab checks last), for the share page. PostgreSQL's
 * jsonb keeps object keys in its own order, so the order is restored here.
 */
export function byCategory(results: ReportResults): Array<[CheckCategory, Array<ResultEntry & { id: string }>]> {
  const rank = (id: string) => checkOrder.get(id) ?? Number.MAX_SAFE_INTEGER;
  const entries = Object.entries(results ?? {})
    .map(([id, entry]) => ({ id, ...entry }))
    .sort((a, b) => rank(a.id) - rank(b.id) || a.id.localeCompare(b.id));
  return categories
    .map(
      (category) =>
        [category, entries.filter((e) => e.category === category)] as [
          CheckCategory,
          Array<ResultEntry & { id: string }>,
        ],
    )
    .filter(([, list]) => list.length > 0);
}
