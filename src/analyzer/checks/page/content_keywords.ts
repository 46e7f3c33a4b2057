/** The `content_keywords` check (seo): Title keywords in the content. */
import * as formats from '../catalogue/formats.ts';
import { documentTitle } from '../helpers.ts';
import type { PageCheck } from '../types.ts';

const stopWords = new Set(
  'the and for with from that this your you are our was were not but all any can has have into its of on in to by at or an a is it as be home page welcome'.split(
    ' ',
  ),
);

/** Significant words of a title: 3+ characters, not a stop word. */
function titleKeywords(title: string): string[] {
  const words = title.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((w) => w.length >= 3 && !stopWords.has(w)))];
}

export default {
  id: 'content_keywords',
  category: 'seo',
  importance: 'high',
  source: 'page',
  order: 1040,
  rendered: true,
  texts: {
    en: {
      title: 'Title keywords in the content',
      description:
        'The significant words of the title also appear in the page’s text. A page whose text does not mention what its title promises ranks poorly for those words.',
      fix: 'Use the missing words in the visible text of the page, or change the title to match what the page really says.',
      fields: { keywords: 'Keywords of the title', missing: 'Missing from the text' },
    },
  },
  value: formats.table({ keywords: { type: 'list' }, missing: { type: 'list' } }),
  run(page) {
    const title = documentTitle(page);
    const keywords = title ? titleKeywords(title) : [];
    if (keywords.length === 0) {
      return { passed: false, value: { keywords }, details: ['The title has no keywords to look for.'] };
    }
    const words = new Set(page.words);
    const missing = keywords.filter((k) => !words.has(k));
    return { passed: missing.length === 0, value: { keywords, missing }, details: missing };
  },
} satisfies PageCheck;
