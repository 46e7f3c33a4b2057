/**
 * The registry of page checks, an explicit list (as Lighthouse's default config lists its
 * audits): each check is one module, `checks/page/<id>.ts`, whose default export is the whole
 * check, and one line below. Reports, the score, the catalogue, `GET /api/v1/checks` and the
 * share page take them from here; the other kinds of check (gsb.ts, lab.ts, accessibility-rules.ts)
 * join them in definitions.ts. `test/analyzer/checks/registry.unit.test.ts` fails when a file
 * of checks/page/ is missing here or named after another id.
 *
 * Both the main thread (identity, texts and formats, through definitions.ts) and the check
 * workers (the measurements, through run-checks.ts) load it, so a check module imports no
 * library loaded on first use (see helpers.ts).
 */
import { locales } from './catalogue/texts.ts';
import type { PageCategory, PageCheck } from './types.ts';
import page404Page from './page/404_page.ts';
import brotli from './page/brotli.ts';
import cacheHeaders from './page/cache_headers.ts';
import canonical from './page/canonical.ts';
import charset from './page/charset.ts';
import contentKeywords from './page/content_keywords.ts';
import contentLength from './page/content_length.ts';
import contentSecurityPolicy from './page/content_security_policy.ts';
import contentTypeOptions from './page/content_type_options.ts';
import deferJavascript from './page/defer_javascript.ts';
import deprecatedHtmlTags from './page/deprecated_html_tags.ts';
import doctype from './page/doctype.ts';
import domSize from './page/dom_size.ts';
import favicon from './page/favicon.ts';
import frameProtection from './page/frame_protection.ts';
import headings from './page/headings.ts';
import hreflang from './page/hreflang.ts';
import hsts from './page/hsts.ts';
import http2 from './page/http2.ts';
import httpRequests from './page/http_requests.ts';
import httpToHttpsRedirect from './page/http_to_https_redirect.ts';
import httpsEncryption from './page/https_encryption.ts';
import imageDimensions from './page/image_dimensions.ts';
import imageFormat from './page/image_format.ts';
import imageKeywords from './page/image_keywords.ts';
import inPageLinks from './page/in_page_links.ts';
import inlineCss from './page/inline_css.ts';
import jsonLdValid from './page/json_ld_valid.ts';
import language from './page/language.ts';
import loadTime from './page/load_time.ts';
import metaDescription from './page/meta_description.ts';
import metaViewport from './page/meta_viewport.ts';
import mixedContent from './page/mixed_content.ts';
import noindex from './page/noindex.ts';
import openGraph from './page/open_graph.ts';
import pageSize from './page/page_size.ts';
import plaintextEmail from './page/plaintext_email.ts';
import referrerPolicy from './page/referrer_policy.ts';
import robots from './page/robots.ts';
import seoFriendlyUrl from './page/seo_friendly_url.ts';
import serverSignature from './page/server_signature.ts';
import sitemap from './page/sitemap.ts';
import social from './page/social.ts';
import structuredData from './page/structured_data.ts';
import textCompression from './page/text_compression.ts';
import textHtmlRatio from './page/text_html_ratio.ts';
import title from './page/title.ts';
import unsafeCrossOriginLinks from './page/unsafe_cross_origin_links.ts';

const categories: ReadonlySet<string> = new Set<PageCategory>(['seo', 'performance', 'security', 'miscellaneous']);
const importances: ReadonlySet<string> = new Set(['high', 'medium', 'low']);

/** Why `check` is not a page check; undefined when it is one. */
function problem(check: Partial<PageCheck> | undefined): string | undefined {
  if (!check || typeof check !== 'object') return 'is not an object';
  if (typeof check.id !== 'string' || !/^[a-z0-9_]+$/.test(check.id))
    return 'has no id of lowercase letters, digits and _';
  if (!categories.has(check.category as string)) return `has category ${String(check.category)}`;
  if (!importances.has(check.importance as string)) return `has importance ${String(check.importance)}`;
  if (check.source !== 'page') return `has source ${String(check.source)}`;
  if (!Number.isFinite(check.order)) return 'has no order';
  if (typeof check.rendered !== 'boolean') return 'does not say whether it is rendered';
  if (typeof check.run !== 'function') return 'has no run function';
  if (!check.value?.unit || !check.value.format) return 'has no value format';
  for (const locale of locales) {
    const texts = check.texts?.[locale];
    if (!texts?.title || !texts.description || !texts.fix) return `has no title, description or fix in ${locale}`;
  }
  return undefined;
}

/**
 * `checks`, sorted by `order`. Throws, naming the check, when one is not a complete page check,
 * or two share an id or an order.
 */
export function validatePageChecks(checks: ReadonlyArray<Partial<PageCheck>>): PageCheck[] {
  checks.forEach((check, i) => {
    const wrong = problem(check);
    if (wrong) throw new Error(`Page check ${String(check?.id ?? `#${i}`)} ${wrong}.`);
  });
  const sorted = [...(checks as PageCheck[])].sort((a, b) => a.order - b.order);
  const ids = new Set<string>();
  for (let i = 0; i < sorted.length; i++) {
    if (ids.has(sorted[i].id)) throw new Error(`Page check ${sorted[i].id} is listed twice.`);
    ids.add(sorted[i].id);
    if (i > 0 && sorted[i].order === sorted[i - 1].order) {
      throw new Error(`Page checks ${sorted[i - 1].id} and ${sorted[i].id} share order ${sorted[i].order}.`);
    }
  }
  return sorted;
}

/** Every page check, in report order. */
export const pageChecks: readonly PageCheck[] = validatePageChecks([
  page404Page,
  brotli,
  cacheHeaders,
  canonical,
  charset,
  contentKeywords,
  contentLength,
  contentSecurityPolicy,
  contentTypeOptions,
  deferJavascript,
  deprecatedHtmlTags,
  doctype,
  domSize,
  favicon,
  frameProtection,
  headings,
  hreflang,
  hsts,
  http2,
  httpRequests,
  httpToHttpsRedirect,
  httpsEncryption,
  imageDimensions,
  imageFormat,
  imageKeywords,
  inPageLinks,
  inlineCss,
  jsonLdValid,
  language,
  loadTime,
  metaDescription,
  metaViewport,
  mixedContent,
  noindex,
  openGraph,
  pageSize,
  plaintextEmail,
  referrerPolicy,
  robots,
  seoFriendlyUrl,
  serverSignature,
  sitemap,
  social,
  structuredData,
  textCompression,
  textHtmlRatio,
  title,
  unsafeCrossOriginLinks,
]);
