/**
 * The check set and its scoring: every check in report order, running them over a page, and
 * the score and grade.
 *
 *   score  = round(100 * sum(weight of passed checks) / sum(weight of all checks))
 *   result = 'good' if score >= 80, 'decent' if score >= 50, else 'bad'
 *
 * A check weighs `weights[importance]`. Default weights (options.ts):
 *
 *   high   = 10  Failing it keeps the page out of search results, exposes users, or makes the
 *                page unusable: title, meta_description, h1, robots_txt, noindex, compression,
 *                load_time, https, mixed_content, viewport.
 *   medium =  5  A clear, measurable quality problem: content_keywords, image_alt,
 *                seo_friendly_url, not_found_page, in_page_links, language, canonical,
 *                page_size, requests, image_format, deferred_scripts, dom_size,
 *                http_to_https_redirect, server_signature, unsafe_cross_origin_links, hsts,
 *                content_security_policy, structured_data, json_ld_valid, charset,
 *                content_length.
 *   low    =  2  Good practice with a small effect: favicon, hreflang, cache_headers, brotli,
 *                http2, image_dimensions, plaintext_emails, content_type_options,
 *                frame_protection, referrer_policy, sitemap, social_links, open_graph,
 *                text_html_ratio, inline_css, deprecated_tags, doctype.
 *
 * With the 48 checks (total weight 239), high checks carry about 42% of the score, medium
 * about 44% and low about 14%. A check that does not apply to the page passes (mixed_content
 * on an http page, hreflang or json_ld_valid when absent).
 */
import { miscellaneousChecks } from './checks/miscellaneous.ts';
import { performanceChecks } from './checks/performance.ts';
import { securityChecks } from './checks/security.ts';
import { seoChecks } from './checks/seo.ts';
import { runCheck, type CheckCategory, type CheckDefinition, type CheckResult, type Importance } from './checks/types.ts';
import type { PageContext } from './page.ts';

/** Every check, in report order. */
export const allChecks: readonly CheckDefinition[] = [
  ...seoChecks,
  ...performanceChecks,
  ...securityChecks,
  ...miscellaneousChecks,
];

const byId = new Map(allChecks.map((c) => [c.id, c]));

/** The check with this id; throws for an unknown id. */
export function checkById(id: string): CheckDefinition {
  const check = byId.get(id);
  if (!check) throw new Error(`Unknown check: ${id}`);
  return check;
}

/** Run `checks` (default: all) over `page`, grouped by category. */
export function runChecks(
  page: PageContext,
  checks: readonly CheckDefinition[] = allChecks,
): Record<CheckCategory, CheckResult[]> {
  const results: Record<CheckCategory, CheckResult[]> = { seo: [], performance: [], security: [], miscellaneous: [] };
  for (const check of checks) results[check.category].push(runCheck(check, page));
  return results;
}


/** The grade of an analysis. */
export type Grade = 'good' | 'decent' | 'bad';

/** Grade for a score: good >= 80, decent >= 50, bad below. */
export function gradeOf(score: number): Grade {
  if (score >= 80) return 'good';
  if (score >= 50) return 'decent';
  return 'bad';
}

/** Weighted share of passed checks, as an integer 0-100, with its grade. */
export function scoreResults(
  results: Iterable<CheckResult>,
  weights: Record<Importance, number>,
): { score: number; result: Grade } {
  let total = 0;
  let passed = 0;
  for (const r of results) {
    const weight = weights[r.importance];
    total += weight;
    if (r.passed) passed += weight;
  }
  const score = total > 0 ? Math.round((100 * passed) / total) : 0;
  return { score, result: gradeOf(score) };
}
