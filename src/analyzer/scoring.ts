/**
 * The check set and its scoring: every check in report order, running them over a page, and
 * the score and grade. Ids, importances, weights and grade bands are phpRank's (1.5.0), so a
 * page gets the score a phpRank install would give it for the same verdicts.
 *
 *   score  = round(100 * sum(weight of passed checks) / sum(weight of all checks))
 *   result = 'good' if score >= 80, 'decent' if score >= 49, else 'bad'
 *
 * A check weighs `weights[importance]`. Default weights (options.ts, ANALYZER_WEIGHTS):
 *
 *   high   = 10  phpRank's high checks: title, meta_description, headings, content_keywords,
 *                image_keywords, seo_friendly_url, 404_page, robots, noindex,
 *                text_compression, https_encryption (no extra is high).
 *   medium =  5  phpRank's medium checks: in_page_links, language, favicon, load_time,
 *                page_size, http_requests, image_format, mixed_content, server_signature,
 *                unsafe_cross_origin_links, structured_data, meta_viewport, charset; ours
 *                (extras): canonical, http_to_https_redirect, hsts, content_security_policy,
 *                json_ld_valid.
 *   low    =  0  phpRank's low checks (reported, not scored): defer_javascript, dom_size,
 *                plaintext_email, sitemap, social, content_length, text_html_ratio,
 *                inline_css, deprecated_html_tags; ours: hreflang, cache_headers, brotli,
 *                http2, image_dimensions, content_type_options, frame_protection,
 *                referrer_policy, open_graph, doctype.
 *
 * Extras (checks phpRank does not have) keep their own ids and the importance we gave them.
 * A check that does not apply to the page passes (mixed_content on an http page, hreflang or
 * json_ld_valid when absent).
 *
 * The `accessibility` checks of a rendered page are not part of this score (phpRank has no such
 * section, and a page's grade must not depend on whether it was rendered): the category has a
 * score of its own (checks/accessibility-rules.ts).
 */
import type { CheckResult, Importance } from './checks/types.ts';

/** The grade of an analysis. */
export type Grade = 'good' | 'decent' | 'bad';

/** The lowest score of each grade (phpRank's bands: good above 79, decent 49 to 79). */
export const gradeBands = { good: 80, decent: 49 } as const;

/** Grade for a score: good >= 80, decent >= 49, bad below. */
export function gradeOf(score: number): Grade {
  if (score >= gradeBands.good) return 'good';
  if (score >= gradeBands.decent) return 'decent';
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
    if (r.category === 'accessibility') continue;
    const weight = weights[r.importance];
    total += weight;
    if (r.passed) passed += weight;
  }
  const score = total > 0 ? Math.round((100 * passed) / total) : 0;
  return { score, result: gradeOf(score) };
}
