/** The `sitemap` check (miscellaneous): Sitemap. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'sitemap',
  category: 'miscellaneous',
  importance: 'low',
  source: 'page',
  order: 4050,
  rendered: false,
  texts: {
    en: {
      title: 'Sitemap',
      description:
        'The site has an XML sitemap (named in robots.txt or at /sitemap.xml), which helps search engines find all pages.',
      fix: 'Publish a sitemap.xml listing the site’s pages and name it in robots.txt with a Sitemap: line.',
      learnMore: 'https://developers.google.com/search/docs/crawling-indexing/sitemaps/overview',
    },
  },
  value: formats.url,
  run(page) {
    const sitemap = page.aux?.sitemap;
    if (!sitemap) return { passed: false, value: null, details: ['The sitemap was not fetched.'] };
    const detail = sitemap.error ?? `${sitemap.url} answered with status ${sitemap.status} and is not a sitemap.`;
    return {
      passed: sitemap.found,
      value: sitemap.found ? (sitemap.finalUrl ?? sitemap.url) : null,
      details: sitemap.found ? [] : [detail],
    };
  },
} satisfies PageCheck;
