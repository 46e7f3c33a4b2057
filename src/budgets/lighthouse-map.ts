/**
 * The one table from Lighthouse's audit ids (and `categories:<id>`) to what this service
 * measures: a check of a report (its id in `results`), with, for the lab metrics, the metric
 * whose samples repeated runs keep; or a category summary. Lighthouse's accessibility audits
 * are named after their axe-core rule, so they come from the accessibility rule table
 * (checks/accessibility-rules.ts) rather than being listed again. An id that is in none of these is
 * one we do not measure: an assertion on it is reported `not_measured`, never passed.
 */
import { accessibilityRules } from '../analyzer/checks/accessibility-rules.ts';
import { checkIdentity } from '../analyzer/checks/definitions.ts';

import type { LabMetric } from '../entities/report.entity.ts';

export type { LabMetric };

/** Where an assertion's values come from. */
export type AssertionTarget =
  | { kind: 'check'; check: string; metric?: LabMetric }
  | { kind: 'category'; category: 'performance' | 'accessibility' };

/** The lab check that reports each metric, and the metric of each lab check. */
export const metricChecks: Record<LabMetric, string> = {
  fcp: 'first_contentful_paint',
  lcp: 'largest_contentful_paint',
  tbt: 'total_blocking_time',
  cls: 'cumulative_layout_shift',
  score: 'lab_performance_score',
  bytes: 'total_byte_weight',
};
const metricOfCheck = new Map(Object.entries(metricChecks).map(([m, c]) => [c, m as LabMetric]));

/**
 * Lighthouse audit id -> our check id, for every audit (outside the accessibility category)
 * a check of ours measures the same thing of. Lighthouse audits with no entry here (speed-index,
 * interactive, unused-javascript, font-display, server-response-time, ...) are not measured.
 */
export const lighthouseAudits: Readonly<Record<string, string>> = {
  // Lab metrics and diagnostics of a rendered page (checks/lab.ts).
  'first-contentful-paint': 'first_contentful_paint',
  'largest-contentful-paint': 'largest_contentful_paint',
  'total-blocking-time': 'total_blocking_time',
  'cumulative-layout-shift': 'cumulative_layout_shift',
  'total-byte-weight': 'total_byte_weight',
  'render-blocking-resources': 'render_blocking_resources',
  'uses-responsive-images': 'oversized_images',
  'offscreen-images': 'offscreen_images',
  'errors-in-console': 'console_errors',
  // Page checks (checks/page/).
  'dom-size': 'dom_size',
  'uses-text-compression': 'text_compression',
  'uses-http2': 'http2',
  'uses-long-cache-ttl': 'cache_headers',
  'modern-image-formats': 'image_format',
  'uses-webp-images': 'image_format',
  'unsized-images': 'image_dimensions',
  'is-on-https': 'https_encryption',
  'redirects-http': 'http_to_https_redirect',
  'csp-xss': 'content_security_policy',
  'has-hsts': 'hsts',
  'clickjacking-mitigation': 'frame_protection',
  doctype: 'doctype',
  charset: 'charset',
  viewport: 'meta_viewport',
  'meta-description': 'meta_description',
  'is-crawlable': 'noindex',
  'robots-txt': 'robots',
  hreflang: 'hreflang',
  canonical: 'canonical',
  'structured-data': 'structured_data',
  'external-anchors-use-rel-noopener': 'unsafe_cross_origin_links',
};

/** Lighthouse category -> ours; seo, best-practices and pwa are Lighthouse's own sets, not measured here. */
const categories: Record<string, AssertionTarget | undefined> = {
  performance: { kind: 'category', category: 'performance' },
  accessibility: { kind: 'category', category: 'accessibility' },
};

const accessibilityAudits = new Map<string, string>(accessibilityRules.map((r) => [r.axe, r.id]));

/**
 * Lighthouse audit id -> our check id, the accessibility audits included. The docs' mapping table
 * is held to it by a test; tagged for knip's production mode.
 * @internal
 */
export function lighthouseMapping(): Array<{ lighthouse: string; check: string }> {
  return [
    ...Object.entries(lighthouseAudits).map(([lighthouse, check]) => ({ lighthouse, check })),
    ...[...accessibilityAudits].map(([lighthouse, check]) => ({ lighthouse, check })),
  ];
}

/**
 * What an assertion key names: a Lighthouse audit id, `categories:<id>` (or `categories.<id>`,
 * as LHCI also reads it), or one of our own check ids; undefined when we do not measure it.
 */
export function assertionTarget(key: string): AssertionTarget | undefined {
  const category = /^categories[:.](.+)$/.exec(key);
  if (category) return categories[category[1]];
  const check = lighthouseAudits[key] ?? accessibilityAudits.get(key) ?? (checkIdentity(key) ? key : undefined);
  if (!check) return undefined;
  const metric = metricOfCheck.get(check);
  return metric ? { kind: 'check', check, metric } : { kind: 'check', check };
}
