/** The `404_page` check (seo): Not-found status. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: '404_page',
  category: 'seo',
  importance: 'high',
  source: 'page',
  order: 1070,
  rendered: false,
  texts: {
    en: {
      title: 'Not-found status',
      description:
        'A made-up address on the site answers with HTTP 404 (or 410). Sites that answer 200 for missing pages get error pages indexed as content.',
      fix: 'Configure the server or application to answer unknown paths with status 404, with a helpful page.',
      learnMore: 'https://developers.google.com/search/docs/crawling-indexing/soft-404-errors',
    },
  },
  value: formats.num('http_status'),
  run(page) {
    const probe = page.aux?.notFound;
    if (!probe) return { passed: false, value: null, details: ['The 404 probe was not fetched.'] };
    const passed = probe.status === 404 || probe.status === 410;
    const detail = probe.error ?? `${probe.url} answered with status ${probe.status}, not 404.`;
    return { passed, value: probe.status ?? null, details: passed ? [] : [detail] };
  },
} satisfies PageCheck;
