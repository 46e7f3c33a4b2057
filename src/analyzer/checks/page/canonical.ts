/** The `canonical` check (seo): Canonical URL. */
import * as formats from '../catalogue/formats.ts';
import { relTokens } from '../helpers.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'canonical',
  category: 'seo',
  importance: 'medium',
  source: 'page',
  order: 1130,
  rendered: true,
  texts: {
    en: {
      title: 'Canonical URL',
      description:
        'The page names one valid canonical address. It tells search engines which URL to index when the same content is reachable under several.',
      fix: 'Add exactly one <link rel="canonical" href="https://…"> with the preferred absolute URL of this page.',
      learnMore: 'https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls',
    },
  },
  value: formats.url,
  run(page) {
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
  },
} satisfies PageCheck;
