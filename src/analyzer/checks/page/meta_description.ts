/** The `meta_description` check (seo): Meta description. */
import * as formats from '../catalogue/formats.ts';
import { normalizeText, metaByName } from '../helpers.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'meta_description',
  category: 'seo',
  importance: 'high',
  source: 'page',
  order: 1020,
  rendered: true,
  texts: {
    en: {
      title: 'Meta description',
      description:
        'The page has a non-empty <meta name="description">. Search engines often use it as the snippet under the result.',
      fix: 'Add <meta name="description" content="…"> to the <head> with one or two sentences that summarise this page.',
      learnMore: 'https://developers.google.com/search/docs/appearance/snippet',
    },
  },
  value: formats.text,
  run(page) {
    const descriptions = metaByName(page, 'description').map((el) => normalizeText(el.attribs['content'] ?? ''));
    const description = descriptions.find((d) => d.length > 0);
    return {
      passed: description !== undefined,
      value: description ?? null,
      details: description ? [] : ['The page has no non-empty <meta name="description">.'],
    };
  },
} satisfies PageCheck;
