/** The `noindex` check (seo): Indexable. */
import * as formats from '../catalogue/formats.ts';
import { metaByName } from '../helpers.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'noindex',
  category: 'seo',
  importance: 'high',
  source: 'page',
  order: 1090,
  rendered: false,
  texts: {
    en: {
      title: 'Indexable',
      description:
        'Neither a robots meta tag nor an X-Robots-Tag header tells search engines not to index the page. A noindex page never appears in results.',
      fix: 'Remove "noindex" (or "none") from <meta name="robots"> and from the X-Robots-Tag header, unless the page should stay out of search.',
      learnMore: 'https://developers.google.com/search/docs/crawling-indexing/block-indexing',
    },
  },
  value: formats.text,
  run(page) {
    const details: string[] = [];
    for (const el of metaByName(page, 'robots', 'googlebot')) {
      const content = (el.attribs['content'] ?? '').toLowerCase();
      if (/\b(noindex|none)\b/.test(content))
        details.push(`<meta name="${el.attribs['name']}" content="${el.attribs['content']}">`);
    }
    const header = page.header('x-robots-tag');
    if (header && /\b(noindex|none)\b/i.test(header)) details.push(`X-Robots-Tag: ${header}`);
    return { passed: details.length === 0, value: details.length > 0 ? 'noindex' : 'index', details };
  },
} satisfies PageCheck;
