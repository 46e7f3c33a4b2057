/**
 * Performance checks: compression, load time, size, request count, image formats,
 * render-blocking scripts, DOM size, caching, brotli, HTTP/2 and image dimensions.
 */
import { isTag, type Element } from 'domhandler';
import type { PageContext } from '../page.ts';
import { relTokens } from './seo.ts';
import { defineCheck, type CheckDefinition } from './types.ts';

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

const modernFormats = new Set(['webp', 'avif', 'svg']);
const legacyFormats = new Set(['jpg', 'jpeg', 'png', 'gif', 'bmp', 'tif', 'tiff', 'jfif', 'pjpeg']);
/** Lighthouse 12's dom-size passes (score >= 0.9) up to this many elements (its p10). */
const lighthouseDomElements = 818;

/** Image format from a URL: a data: MIME subtype or the path's extension; undefined if unknown. */
export function imageFormat(src: string, base: URL): string | undefined {
  const data = /^data:image\/([a-z0-9.+-]+)/i.exec(src.trim());
  if (data) return data[1].toLowerCase().replace('svg+xml', 'svg');
  let path: string;
  try {
    path = new URL(src, base).pathname;
  } catch {
    return undefined;
  }
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  if (!ext) return undefined;
  return modernFormats.has(ext) || legacyFormats.has(ext) ? ext : undefined;
}

function encodingOf(page: PageContext): string {
  return (page.header('content-encoding') ?? '').toLowerCase();
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

/** The performance checks. */
export const performanceChecks: CheckDefinition[] = [
  defineCheck('text_compression', (page) => {
    const encoding = encodingOf(page);
    const passed = /\b(gzip|br|deflate|zstd)\b/.test(encoding);
    const details = passed ? [] : [`The HTML (${kb(page.decodedBytes)}) is sent uncompressed.`];
    return { passed, value: encoding || null, details };
  }),

  defineCheck('load_time', (page) => {
    const ms = Math.round(page.timings.totalMs);
    const max = page.thresholds.maxLoadTimeMs;
    return { passed: ms <= max, value: ms, details: ms <= max ? [] : [`The page took ${ms} ms to load (max ${max}).`] };
  }),

  defineCheck('page_size', (page) => {
    const bytes = page.decodedBytes;
    const max = page.thresholds.maxPageSizeBytes;
    return {
      passed: bytes <= max,
      value: bytes,
      details: bytes <= max ? [] : [`The HTML is ${kb(bytes)} (max ${kb(max)}).`],
    };
  }),

  defineCheck('http_requests', (page) => {
    const resources = pageResources(page);
    const byType: Record<string, number> = {};
    for (const r of resources) byType[r.type] = (byType[r.type] ?? 0) + 1;
    const max = page.thresholds.maxRequests;
    const passed = resources.length <= max;
    const details = passed ? [] : Object.entries(byType).map(([type, n]) => `${n} ${type} request(s)`);
    return { passed, value: { total: resources.length, byType }, details };
  }),

  defineCheck('image_format', (page) => {
    const { $ } = page;
    const legacy: string[] = [];
    let modern = 0;
    // Whether a <picture> offers a modern <source>, computed once per picture (many <img> may share one).
    const pictures = new Map<Element, boolean>();
    const offersModern = (picture: Element): boolean => {
      let known = pictures.get(picture);
      if (known === undefined) {
        known = picture.children.some(
          (s) =>
            isTag(s) &&
            s.name === 'source' &&
            (/image\/(webp|avif)/i.test(s.attribs['type'] ?? '') ||
              modernFormats.has(imageFormat(s.attribs['srcset'] ?? '', page.url) ?? '')),
        );
        pictures.set(picture, known);
      }
      return known;
    };
    for (const el of $('img[src]').toArray()) {
      const parent = el.parent;
      const modernSource = !!parent && isTag(parent) && parent.name === 'picture' && offersModern(parent);
      const format = imageFormat(el.attribs['src'], page.url);
      if (modernSource || (format && modernFormats.has(format))) modern++;
      else if (format) legacy.push(page.describe(el, 'src'));
    }
    return { passed: legacy.length === 0, value: { modern, legacy: legacy.length }, details: legacy };
  }),

  defineCheck('defer_javascript', (page) => {
    const blocking = page
      .$('head script[src]')
      .toArray()
      .filter((el) => {
        const type = (el.attribs['type'] ?? '').trim().toLowerCase();
        if (type === 'module') return false;
        if (type && !/javascript|ecmascript|^text\/jscript$/.test(type)) return false;
        return el.attribs['async'] === undefined && el.attribs['defer'] === undefined;
      });
    return {
      passed: blocking.length === 0,
      value: blocking.length,
      details: blocking.map((el) => page.describe(el, 'src')),
    };
  }),

  // We keep phpRank's rule (maxDomNodes, 1,500 by default); Lighthouse 12's dom-size passes
  // only up to 818 elements. A count between the two says so, passing or not.
  defineCheck('dom_size', (page) => {
    const count = page.elementCount;
    const max = page.thresholds.maxDomNodes;
    const details = count <= max ? [] : [`${count} DOM elements (max ${max}).`];
    if (count > lighthouseDomElements) {
      details.push(
        `The limit is phpRank's (${max} elements); Lighthouse's dom-size audit passes only up to ${lighthouseDomElements}.`,
      );
    }
    return { passed: count <= max, value: count, details };
  }),

  defineCheck('cache_headers', (page) => {
    const value = {
      cacheControl: page.header('cache-control') ?? null,
      etag: page.header('etag') ?? null,
      lastModified: page.header('last-modified') ?? null,
    };
    const passed = Object.values(value).some((v) => v !== null);
    return { passed, value, details: passed ? [] : ['No Cache-Control, ETag or Last-Modified header.'] };
  }),

  defineCheck('brotli', (page) => {
    const encoding = encodingOf(page);
    const passed = /\bbr\b/.test(encoding);
    return {
      passed,
      value: encoding || null,
      details: passed ? [] : [`Content-Encoding is ${encoding || 'none'}, not br.`],
    };
  }),

  defineCheck('http2', (page) => {
    const passed = /^[23]/.test(page.httpVersion);
    return { passed, value: page.httpVersion, details: passed ? [] : [`Served over HTTP/${page.httpVersion}.`] };
  }),

  defineCheck('image_dimensions', (page) => {
    const images = page.$('img').toArray();
    const missing = images.filter((el) => el.attribs['width'] === undefined || el.attribs['height'] === undefined);
    return {
      passed: missing.length === 0,
      value: { images: images.length, missingDimensions: missing.length },
      details: missing.map((el) => page.describe(el, 'src')),
    };
  }),
];
