/** The `seo_friendly_url` check (seo): Readable URL. */
import * as formats from '../catalogue/formats.ts';
import { decodeSafe } from '../helpers.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'seo_friendly_url',
  category: 'seo',
  importance: 'high',
  source: 'page',
  order: 1060,
  rendered: false,
  texts: {
    en: {
      title: 'Readable URL',
      description:
        'The address is short, lowercase, has no query string and separates words with hyphens. Such URLs are easier to read, share and rank.',
      fix: 'Serve the page at a short lowercase path with hyphens between words (for example /blue-shoes) and redirect the old address to it.',
    },
  },
  value: formats.url,
  run(page) {
    const url = page.url;
    const path = decodeSafe(url.pathname);
    const details: string[] = [];
    if (url.href.length > page.thresholds.maxUrlLength) {
      details.push(`The URL is ${url.href.length} characters long (max ${page.thresholds.maxUrlLength}).`);
    }
    if (url.search) details.push(`The URL has a query string (${url.search}).`);
    if (path !== path.toLowerCase()) details.push('The path contains uppercase letters.');
    if (path.includes('_')) details.push('The path separates words with underscores instead of hyphens.');
    if (/[\s+]/.test(path)) details.push('The path contains spaces or plus signs instead of hyphens.');
    return { passed: details.length === 0, value: url.href, details };
  },
} satisfies PageCheck;
