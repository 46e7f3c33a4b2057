/** The `hreflang` check (seo): Language alternates. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

const hreflangPattern = /^(x-default|[a-z]{2,3}(-[a-z]{4})?(-([a-z]{2}|\d{3}))?)$/i;

export default {
  id: 'hreflang',
  category: 'seo',
  importance: 'low',
  source: 'page',
  order: 1140,
  rendered: true,
  texts: {
    en: {
      title: 'Language alternates',
      description:
        'Every <link hreflang> has a valid language code and URL. Invalid alternates are ignored, so visitors may get the wrong language version.',
      fix: 'Use codes like "en", "en-GB" or "x-default" in hreflang, each with a valid href.',
      learnMore: 'https://developers.google.com/search/docs/specialty/international/localized-versions',
    },
  },
  value: formats.list,
  run(page) {
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
  },
} satisfies PageCheck;
