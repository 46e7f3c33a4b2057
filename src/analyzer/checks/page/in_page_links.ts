/** The `in_page_links` check (seo): Number of links. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'in_page_links',
  category: 'seo',
  importance: 'medium',
  source: 'page',
  order: 1100,
  rendered: true,
  texts: {
    en: {
      title: 'Number of links',
      description:
        'The page does not have an excessive number of links. Very many links dilute their weight and make the page hard to use.',
      fix: 'Remove links that readers do not need, or split the page into several pages.',
      counted: { one: 'link', other: 'links' },
    },
  },
  value: formats.count,
  run(page) {
    const count = page.$('a[href]').length;
    const max = page.thresholds.maxLinks;
    return { passed: count <= max, value: count, details: count <= max ? [] : [`${count} links (max ${max}).`] };
  },
} satisfies PageCheck;
