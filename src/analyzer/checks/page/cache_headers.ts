/** The `cache_headers` check (performance): Caching headers. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'cache_headers',
  category: 'performance',
  importance: 'low',
  source: 'page',
  order: 2080,
  rendered: false,
  texts: {
    en: {
      title: 'Caching headers',
      description:
        'The response carries Cache-Control, ETag or Last-Modified. Without them browsers and proxies cannot reuse or revalidate the page.',
      fix: 'Send Cache-Control (and an ETag or Last-Modified) on the page’s responses.',
      fields: { cacheControl: 'Cache-Control', etag: 'ETag', lastModified: 'Last-Modified' },
      learnMore: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/Caching',
    },
  },
  value: formats.table({ cacheControl: { type: 'text' }, etag: { type: 'text' }, lastModified: { type: 'text' } }),
  run(page) {
    const value = {
      cacheControl: page.header('cache-control') ?? null,
      etag: page.header('etag') ?? null,
      lastModified: page.header('last-modified') ?? null,
    };
    const passed = Object.values(value).some((v) => v !== null);
    return { passed, value, details: passed ? [] : ['No Cache-Control, ETag or Last-Modified header.'] };
  },
} satisfies PageCheck;
