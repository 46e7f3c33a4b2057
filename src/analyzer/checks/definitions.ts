/**
 * What every check is, apart from how it runs: its id, report section, importance (which
 * picks its weight, scoring.ts) and where its verdict comes from. The implementations
 * (seo.ts, performance.ts, security.ts, miscellaneous.ts, render/lab.ts, reports/gsb.ts)
 * take their identity from here, and the catalogue (catalogue/) describes exactly these ids.
 */
import { accessibilityRules } from './accessibility.ts';
import type { CheckCategory, Importance } from './types.ts';

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

const page = <Id extends string>(category: CheckCategory, id: Id, importance: Importance) =>
  ({ id, category, importance, source: 'page' }) as const;

/** Every check the service can report, in report order (phpRank's ids first within a section). */
export const checkDefinitions = [
  page('seo', 'title', 'high'),
  page('seo', 'meta_description', 'high'),
  page('seo', 'headings', 'high'),
  page('seo', 'content_keywords', 'high'),
  page('seo', 'image_keywords', 'high'),
  page('seo', 'seo_friendly_url', 'high'),
  page('seo', '404_page', 'high'),
  page('seo', 'robots', 'high'),
  page('seo', 'noindex', 'high'),
  page('seo', 'in_page_links', 'medium'),
  page('seo', 'language', 'medium'),
  page('seo', 'favicon', 'medium'),
  page('seo', 'canonical', 'medium'),
  page('seo', 'hreflang', 'low'),

  page('performance', 'text_compression', 'high'),
  page('performance', 'load_time', 'medium'),
  page('performance', 'page_size', 'medium'),
  page('performance', 'http_requests', 'medium'),
  page('performance', 'image_format', 'medium'),
  page('performance', 'defer_javascript', 'low'),
  page('performance', 'dom_size', 'low'),
  page('performance', 'cache_headers', 'low'),
  page('performance', 'brotli', 'low'),
  page('performance', 'http2', 'low'),
  page('performance', 'image_dimensions', 'low'),

  page('security', 'https_encryption', 'high'),
  { id: 'gsb', category: 'security', importance: 'high', source: 'safe-browsing' },
  page('security', 'http_to_https_redirect', 'medium'),
  page('security', 'mixed_content', 'medium'),
  page('security', 'server_signature', 'medium'),
  page('security', 'unsafe_cross_origin_links', 'medium'),
  page('security', 'plaintext_email', 'low'),
  page('security', 'hsts', 'medium'),
  page('security', 'content_security_policy', 'medium'),
  page('security', 'content_type_options', 'low'),
  page('security', 'frame_protection', 'low'),
  page('security', 'referrer_policy', 'low'),

  page('miscellaneous', 'structured_data', 'medium'),
  page('miscellaneous', 'json_ld_valid', 'medium'),
  page('miscellaneous', 'meta_viewport', 'medium'),
  page('miscellaneous', 'charset', 'medium'),
  page('miscellaneous', 'sitemap', 'low'),
  page('miscellaneous', 'social', 'low'),
  page('miscellaneous', 'open_graph', 'low'),
  page('miscellaneous', 'content_length', 'low'),
  page('miscellaneous', 'text_html_ratio', 'low'),
  page('miscellaneous', 'inline_css', 'low'),
  page('miscellaneous', 'deprecated_html_tags', 'low'),
  page('miscellaneous', 'doctype', 'low'),

  // Lab checks of a rendered page (render/lab.ts); http_requests and mixed_content above are
  // measured again there and replace the page verdicts.
  { id: 'first_contentful_paint', category: 'performance', importance: 'medium', source: 'rendered' },
  { id: 'largest_contentful_paint', category: 'performance', importance: 'high', source: 'rendered' },
  { id: 'total_blocking_time', category: 'performance', importance: 'medium', source: 'rendered' },
  { id: 'cumulative_layout_shift', category: 'performance', importance: 'high', source: 'rendered' },
  { id: 'lab_performance_score', category: 'performance', importance: 'medium', source: 'rendered' },
  { id: 'total_byte_weight', category: 'performance', importance: 'low', source: 'rendered' },
  { id: 'render_blocking_resources', category: 'performance', importance: 'medium', source: 'rendered' },
  { id: 'oversized_images', category: 'performance', importance: 'low', source: 'rendered' },
  { id: 'offscreen_images', category: 'performance', importance: 'low', source: 'rendered' },
  { id: 'console_errors', category: 'miscellaneous', importance: 'low', source: 'rendered' },

  // Accessibility (checks/accessibility.ts): Lighthouse's accessibility rules, by axe-core in
  // the rendered page; scored in their own category, not in the report's score.
  ...accessibilityRules.map(({ id, category, importance, source }) => ({ id, category, importance, source })),
] as const satisfies readonly CheckIdentity[];

/** The id of a check the service can report. */
export type CheckId = (typeof checkDefinitions)[number]['id'];

const byId = new Map<string, CheckIdentity>(checkDefinitions.map((d) => [d.id, d]));

/** Whether `id` names a check the service can report. */
export function isCheckId(id: string): id is CheckId {
  return byId.has(id);
}

/** The identity of check `id` (typed ids only, so it always exists). */
export function checkIdentity(id: CheckId): CheckIdentity {
  return byId.get(id)!;
}

/** Position of each id in report order. */
export const checkOrder: ReadonlyMap<string, number> = new Map(checkDefinitions.map((d, i) => [d.id, i]));
