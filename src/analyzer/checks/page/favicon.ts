/** The `favicon` check (seo): Favicon. */
import * as formats from '../catalogue/formats.ts';
import { relTokens } from '../helpers.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'favicon',
  category: 'seo',
  importance: 'medium',
  source: 'page',
  order: 1120,
  rendered: true,
  texts: {
    en: {
      title: 'Favicon',
      description:
        'The page links an icon. Browsers show it in tabs and bookmarks, and search engines beside the result.',
      fix: 'Add <link rel="icon" href="/favicon.png"> (and an apple-touch-icon) to the <head>.',
    },
  },
  value: formats.url,
  run(page) {
    const icon = page
      .$('link[rel][href]')
      .toArray()
      .find((el) => relTokens(el).some((t) => t === 'icon' || t === 'apple-touch-icon'));
    const href = icon ? page.resolve(icon.attribs['href'])?.href : undefined;
    return { passed: href !== undefined, value: href ?? null, details: href ? [] : ['No <link rel="icon">.'] };
  },
} satisfies PageCheck;
