/**
 * The unit of each check's value and how to show it, the same in every language. The value
 * shapes are those the implementations write (seo.ts ... render/lab.ts); a reader that meets a
 * value of another shape (a report stored by an older version) shows it generically.
 */
import { accessibilityRules } from '../accessibility.ts';
import type { CheckId } from '../definitions.ts';

/** What a number measures. `count` is of the things the check's texts name (`counted`). */
export type NumberUnit = 'milliseconds' | 'bytes' | 'count' | 'percent' | 'score' | 'unitless' | 'http_status';

/**
 * How a value is shown:
 * - `text`: a string (null: none);
 * - `url`: an address;
 * - `boolean`: yes or no;
 * - `number`: a number in `unit` (`decimals` at most);
 * - `metric`: a lab timing `{ms, score}` (score 0-1, Lighthouse's);
 * - `list`: strings, one per item;
 * - `counts`: an object of name to a count (or to `{count, bytes}`), as a short table;
 * - `fields`: an object whose keys are shown with the check's `fields` labels, each value
 *   in its own format, as a short table.
 */
export type ValueFormat = FieldFormat | { type: 'fields'; fields: Record<string, FieldFormat> };

/** The format of a value that is not itself a table of fields (fields do not nest). */
export type FieldFormat =
  | { type: 'text' }
  | { type: 'url' }
  | { type: 'boolean' }
  | { type: 'number'; unit: NumberUnit; decimals?: number }
  | { type: 'metric'; unit: 'milliseconds' }
  | { type: 'list' }
  | { type: 'counts' };

/** The headline unit of a check's value (what a column of values would be labelled with). */
export type ValueUnit = NumberUnit | 'text' | 'url' | 'boolean' | 'list' | 'table';

/** A check's unit and format. */
export interface ValueSpec {
  unit: ValueUnit;
  format: ValueFormat;
}

const text: ValueSpec = { unit: 'text', format: { type: 'text' } };
const url: ValueSpec = { unit: 'url', format: { type: 'url' } };
const list: ValueSpec = { unit: 'list', format: { type: 'list' } };
const num = (unit: NumberUnit, decimals?: number): ValueSpec => ({
  unit,
  format: decimals === undefined ? { type: 'number', unit } : { type: 'number', unit, decimals },
});
const count = num('count');
const table = (fields: Record<string, FieldFormat>): ValueSpec => ({
  unit: 'table',
  format: { type: 'fields', fields },
});
const n = (unit: NumberUnit): FieldFormat => ({ type: 'number', unit });
const metric: ValueSpec = { unit: 'milliseconds', format: { type: 'metric', unit: 'milliseconds' } };

const accessibilityValue = table({
  outcome: { type: 'text' },
  impact: { type: 'text' },
  nodes: n('count'),
  weight: n('unitless'),
});

/** Unit and format of every check's value. */
export const valueSpecs: Readonly<Record<CheckId, ValueSpec>> = {
  title: text,
  meta_description: text,
  headings: list,
  content_keywords: table({ keywords: { type: 'list' }, missing: { type: 'list' } }),
  image_keywords: table({ images: n('count'), missingAlt: n('count') }),
  seo_friendly_url: url,
  '404_page': num('http_status'),
  robots: table({ status: n('http_status'), rules: { type: 'boolean' }, allowed: { type: 'boolean' } }),
  noindex: text,
  in_page_links: count,
  language: text,
  favicon: url,
  canonical: url,
  hreflang: list,

  text_compression: text,
  load_time: num('milliseconds'),
  page_size: num('bytes'),
  http_requests: table({ total: n('count'), bytes: n('bytes'), byType: { type: 'counts' }, refused: n('count') }),
  image_format: table({ modern: n('count'), legacy: n('count') }),
  defer_javascript: count,
  dom_size: count,
  cache_headers: table({ cacheControl: { type: 'text' }, etag: { type: 'text' }, lastModified: { type: 'text' } }),
  brotli: text,
  http2: text,
  image_dimensions: table({ images: n('count'), missingDimensions: n('count') }),

  https_encryption: text,
  gsb: list,
  http_to_https_redirect: url,
  mixed_content: count,
  server_signature: text,
  unsafe_cross_origin_links: count,
  plaintext_email: count,
  hsts: text,
  content_security_policy: table({ source: { type: 'text' }, policy: { type: 'text' } }),
  content_type_options: text,
  frame_protection: table({ xFrameOptions: { type: 'text' }, frameAncestors: { type: 'boolean' } }),
  referrer_policy: text,

  structured_data: table({ jsonLd: n('count'), microdata: n('count'), rdfa: n('count'), types: { type: 'list' } }),
  json_ld_valid: table({ blocks: n('count'), invalid: n('count') }),
  meta_viewport: text,
  charset: text,
  sitemap: url,
  social: list,
  open_graph: list,
  content_length: count,
  text_html_ratio: num('percent', 1),
  inline_css: count,
  deprecated_html_tags: list,
  doctype: text,

  first_contentful_paint: metric,
  largest_contentful_paint: metric,
  total_blocking_time: metric,
  cumulative_layout_shift: num('unitless', 3),
  lab_performance_score: num('score'),
  total_byte_weight: num('bytes'),
  render_blocking_resources: count,
  oversized_images: count,
  offscreen_images: count,
  console_errors: count,

  // {outcome, impact, nodes} (checks/accessibility.ts); the nodes themselves are the details.
  ...(Object.fromEntries(accessibilityRules.map((r) => [r.id, accessibilityValue])) as Record<
    (typeof accessibilityRules)[number]['id'],
    ValueSpec
  >),
};
