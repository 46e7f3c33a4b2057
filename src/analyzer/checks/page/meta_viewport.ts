/** The `meta_viewport` check (miscellaneous): Mobile viewport. */
import * as formats from '../catalogue/formats.ts';
import { metaByName } from '../helpers.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'meta_viewport',
  category: 'miscellaneous',
  importance: 'medium',
  source: 'page',
  order: 4030,
  rendered: true,
  texts: {
    en: {
      title: 'Mobile viewport',
      description:
        'The page has <meta name="viewport">. Without it phones render the page at desktop width, zoomed out and hard to read.',
      fix: 'Add <meta name="viewport" content="width=device-width, initial-scale=1"> to the <head>.',
      learnMore: 'https://developer.mozilla.org/en-US/docs/Web/HTML/Viewport_meta_tag',
    },
  },
  value: formats.text,
  run(page) {
    const content = metaByName(page, 'viewport')[0]?.attribs['content']?.trim();
    return {
      passed: Boolean(content),
      value: content ?? null,
      details: content ? [] : ['No <meta name="viewport">.'],
    };
  },
} satisfies PageCheck;
