/**
 * Helpers more than one page check reads the page with (checks/page/). A helper of one check
 * stays in that check's module. The registry loads every check module on the main thread too
 * (for the catalogue), so nothing here imports a library loaded on first use (cheerio, tldts,
 * robots-parser): checks reach those through the page (page.ts).
 */
import type { Element } from 'domhandler';
import type { PageContext } from '../page.ts';

/** Collapse whitespace and trim. */
export function normalizeText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The document title text, or undefined. */
export function documentTitle(page: PageContext): string | undefined {
  const first = page.titleElements[0];
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

/** `decodeURIComponent`, or `value` unchanged when it is not valid percent-encoding. */
export function decodeSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The response's Content-Encoding, lowercase ('' when none). */
export function encodingOf(page: PageContext): string {
  return (page.header('content-encoding') ?? '').toLowerCase();
}

/** Bytes as kilobytes with one decimal ("12.3 KB"). */
export function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

/** The text of each <script type="application/ld+json"> block. */
export function jsonLdBlocks(page: PageContext): string[] {
  return page
    .$('script[type]')
    .toArray()
    .filter((el) => (el.attribs['type'] ?? '').trim().toLowerCase() === 'application/ld+json')
    .map((el) => page.$(el).text());
}

/** A sub-resource the page makes the browser fetch. */
export interface PageResource {
  type: string;
  url: URL;
  element: Element;
  attribute: string;
}

const resourceSources: Array<[selector: string, attribute: string, type: string]> = [
  ['script[src]', 'src', 'script'],
  ['img[src]', 'src', 'image'],
  ['input[type="image"][src]', 'src', 'image'],
  ['iframe[src]', 'src', 'iframe'],
  ['frame[src]', 'src', 'iframe'],
  ['embed[src]', 'src', 'embed'],
  ['object[data]', 'data', 'object'],
  ['video[src]', 'src', 'media'],
  ['video[poster]', 'poster', 'image'],
  ['audio[src]', 'src', 'media'],
  ['source[src]', 'src', 'media'],
  ['track[src]', 'src', 'media'],
];

const fetchedLinkRels: Record<string, string> = {
  stylesheet: 'stylesheet',
  icon: 'icon',
  preload: 'preload',
  modulepreload: 'script',
  manifest: 'manifest',
};

/**
 * Resources referenced by the page (scripts, stylesheets, images, frames, media...), one
 * entry per distinct http(s) URL. Computed once per page.
 */
export function pageResources(page: PageContext): PageResource[] {
  const cached = resourceCache.get(page);
  if (cached) return cached;
  const seen = new Set<string>();
  const out: PageResource[] = [];
  const add = (element: Element, attribute: string, type: string): void => {
    const url = page.resolve(element.attribs[attribute]);
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || seen.has(url.href)) return;
    seen.add(url.href);
    out.push({ type, url, element, attribute });
  };
  for (const [selector, attribute, type] of resourceSources) {
    for (const el of page.$(selector).toArray() as Element[]) add(el, attribute, type);
  }
  for (const el of page.$('link[rel][href]').toArray()) {
    const type = relTokens(el)
      .map((t) => fetchedLinkRels[t])
      .find(Boolean);
    if (type) add(el, 'href', type);
  }
  resourceCache.set(page, out);
  return out;
}
const resourceCache = new WeakMap<PageContext, PageResource[]>();
