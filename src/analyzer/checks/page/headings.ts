/** The `headings` check (seo): Main heading. */
import * as formats from '../catalogue/formats.ts';
import { normalizeText, documentTitle } from '../helpers.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'headings',
  category: 'seo',
  importance: 'high',
  source: 'page',
  order: 1030,
  rendered: true,
  texts: {
    en: {
      title: 'Main heading',
      description:
        'The page has exactly one <h1>, and it does not merely repeat the title. The main heading tells readers and search engines what the page is about.',
      fix: 'Use a single <h1> for the page’s main heading (other headings as <h2>–<h6>) and word it differently from the <title>.',
    },
  },
  value: formats.list,
  run(page) {
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
  },
} satisfies PageCheck;
