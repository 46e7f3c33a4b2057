/**
 * SEO checks: title, description, headings, keywords, alt texts, URL shape, 404 handling,
 * robots rules, indexability, link count, language, favicon, canonical and hreflang.
 */
import { robotsParser } from '../robots-parser.ts';
import type { Element } from 'domhandler';
import type { PageContext } from '../page.ts';
import { defineCheck, type CheckDefinition } from './types.ts';

/** Collapse whitespace and trim. */
export function normalizeText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** <title> elements of the document itself (not SVG titles). */
function titleElements(page: PageContext): Element[] {
  return page.titleElements;
}

/** The document title text, or undefined. */
export function documentTitle(page: PageContext): string | undefined {
  const first = titleElements(page)[0];
  return first ? normalizeText(page.$(first).text()) : undefined;
}

/** Values of rel as lowercase tokens. */
export function relTokens(el: Element): string[] {
  return (el.attribs['rel'] ?? '').toLowerCase().split(/\s+/).filter(Boolean);
}

/** <meta name=...> elements whose name (case-insensitive) is in `names`. */
export function metaByName(page: PageContext, ...names: string[]): Element[] {
  return page
    .$('meta[name]')
    .toArray()
    .filter((el) => names.includes((el.attribs['name'] ?? '').trim().toLowerCase()));
}

const stopWords = new Set(
  'the and for with from that this your you are our was were not but all any can has have into its of on in to by at or an a is it as be home page welcome'.split(
    ' ',
  ),
);

/** Significant words of a title: 3+ characters, not a stop word. */
export function titleKeywords(title: string): string[] {
  const words = title.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((w) => w.length >= 3 && !stopWords.has(w)))];
}

const hreflangPattern = /^(x-default|[a-z]{2,3}(-[a-z]{4})?(-([a-z]{2}|\d{3}))?)$/i;

/** The SEO checks. */
export const seoChecks: CheckDefinition[] = [
  defineCheck('title', (page) => {
    const titles = titleElements(page).map((el) => normalizeText(page.$(el).text()));
    const { titleMinLength: min, titleMaxLength: max } = page.thresholds;
    const title = titles[0];
    const details: string[] = [];
    if (titles.length === 0) details.push('The page has no <title>.');
    if (titles.length > 1) details.push(...titles.map((t) => `<title>${t}</title>`));
    if (title !== undefined && (title.length < min || title.length > max)) {
      details.push(`The title is ${title.length} characters long (allowed ${min}-${max}).`);
    }
    return { passed: details.length === 0, value: title ?? null, details };
  }),

  defineCheck('meta_description', (page) => {
    const descriptions = metaByName(page, 'description').map((el) => normalizeText(el.attribs['content'] ?? ''));
    const description = descriptions.find((d) => d.length > 0);
    return {
      passed: description !== undefined,
      value: description ?? null,
      details: description ? [] : ['The page has no non-empty <meta name="description">.'],
    };
  }),

  defineCheck('headings', (page) => {
    const h1s = page
      .$('h1')
      .toArray()
      .map((el) => normalizeText(page.$(el).text()));
    const title = documentTitle(page);
    const details: string[] = [];
    if (h1s.length === 0) details.push('The page has no <h1>.');
    if (h1s.length > 1) details.push(...h1s.map((h) => `<h1>${h}</h1>`));
    if (h1s.length === 1 && title !== undefined && h1s[0].toLowerCase() === title.toLowerCase()) {
      details.push(`The <h1> repeats the title ("${title}").`);
    }
    return { passed: details.length === 0, value: h1s, details };
  }),

  defineCheck('content_keywords', (page) => {
    const title = documentTitle(page);
    const keywords = title ? titleKeywords(title) : [];
    if (keywords.length === 0) {
      return { passed: false, value: { keywords }, details: ['The title has no keywords to look for.'] };
    }
    const words = new Set(page.words);
    const missing = keywords.filter((k) => !words.has(k));
    return { passed: missing.length === 0, value: { keywords, missing }, details: missing };
  }),

  defineCheck('image_keywords', (page) => {
    const images = page.$('img').toArray();
    const missing = images.filter((el) => el.attribs['alt'] === undefined);
    return {
      passed: missing.length === 0,
      value: { images: images.length, missingAlt: missing.length },
      details: missing.map((el) => page.describe(el, 'src')),
    };
  }),

  defineCheck('seo_friendly_url', (page) => {
    const url = page.url;
    const path = decodeURIComponentSafe(url.pathname);
    const details: string[] = [];
    if (url.href.length > page.thresholds.maxUrlLength) {
      details.push(`The URL is ${url.href.length} characters long (max ${page.thresholds.maxUrlLength}).`);
    }
    if (url.search) details.push(`The URL has a query string (${url.search}).`);
    if (path !== path.toLowerCase()) details.push('The path contains uppercase letters.');
    if (path.includes('_')) details.push('The path separates words with underscores instead of hyphens.');
    if (/[\s+]/.test(path)) details.push('The path contains spaces or plus signs instead of hyphens.');
    return { passed: details.length === 0, value: url.href, details };
  }),

  defineCheck('404_page', (page) => {
    const probe = page.aux?.notFound;
    if (!probe) return { passed: false, value: null, details: ['The 404 probe was not fetched.'] };
    const passed = probe.status === 404 || probe.status === 410;
    const detail = probe.error ?? `${probe.url} answered with status ${probe.status}, not 404.`;
    return { passed, value: probe.status ?? null, details: passed ? [] : [detail] };
  }),

  defineCheck('robots', (page) => {
    const robots = page.aux?.robots;
    if (!robots) return { passed: false, value: null, details: ['robots.txt was not fetched.'] };
    if (robots.text === undefined) {
      return { passed: true, value: { status: robots.status ?? null, rules: false }, details: [] };
    }
    const parsed = robotsParser(robots.url, robots.text);
    const allowed = parsed.isAllowed(page.url.href, page.robotsAgent) !== false;
    const details: string[] = [];
    if (!allowed) {
      const line = parsed.getMatchingLineNumber(page.url.href, page.robotsAgent);
      const text = line > 0 ? robots.text.split(/\r?\n/)[line - 1]?.trim() : undefined;
      details.push(`robots.txt disallows this page${text ? ` (line ${line}: ${text})` : ''}.`);
    }
    return { passed: allowed, value: { status: robots.status ?? null, rules: true, allowed }, details };
  }),

  defineCheck('noindex', (page) => {
    const details: string[] = [];
    for (const el of metaByName(page, 'robots', 'googlebot')) {
      const content = (el.attribs['content'] ?? '').toLowerCase();
      if (/\b(noindex|none)\b/.test(content))
        details.push(`<meta name="${el.attribs['name']}" content="${el.attribs['content']}">`);
    }
    const header = page.header('x-robots-tag');
    if (header && /\b(noindex|none)\b/i.test(header)) details.push(`X-Robots-Tag: ${header}`);
    return { passed: details.length === 0, value: details.length > 0 ? 'noindex' : 'index', details };
  }),

  defineCheck('in_page_links', (page) => {
    const count = page.$('a[href]').length;
    const max = page.thresholds.maxLinks;
    return { passed: count <= max, value: count, details: count <= max ? [] : [`${count} links (max ${max}).`] };
  }),

  defineCheck('language', (page) => {
    const lang = (page.$('html').attr('lang') ?? '').trim();
    return { passed: lang.length > 0, value: lang || null, details: lang ? [] : ['<html> has no lang attribute.'] };
  }),

  defineCheck('favicon', (page) => {
    const icon = page
      .$('link[rel][href]')
      .toArray()
      .find((el) => relTokens(el).some((t) => t === 'icon' || t === 'apple-touch-icon'));
    const href = icon ? page.resolve(icon.attribs['href'])?.href : undefined;
    return { passed: href !== undefined, value: href ?? null, details: href ? [] : ['No <link rel="icon">.'] };
  }),

  defineCheck('canonical', (page) => {
    const links = page
      .$('link[rel]')
      .toArray()
      .filter((el) => relTokens(el).includes('canonical'));
    const hrefs = links.map((el) => page.resolve(el.attribs['href'])?.href);
    const details: string[] = [];
    if (links.length === 0) details.push('No <link rel="canonical">.');
    if (links.length > 1) details.push(...links.map((el) => page.describe(el, 'href')));
    if (links.length === 1 && hrefs[0] === undefined)
      details.push(`${page.describe(links[0], 'href')} has no valid URL.`);
    return { passed: details.length === 0, value: hrefs[0] ?? null, details };
  }),

  defineCheck('hreflang', (page) => {
    const links = page.$('link[hreflang]').toArray();
    const invalid = links.filter(
      (el) =>
        !hreflangPattern.test((el.attribs['hreflang'] ?? '').trim()) || page.resolve(el.attribs['href']) === undefined,
    );
    return {
      passed: invalid.length === 0,
      value: links.map((el) => el.attribs['hreflang']),
      details: invalid.map((el) => page.describe(el, 'hreflang')),
    };
  }),
];

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
