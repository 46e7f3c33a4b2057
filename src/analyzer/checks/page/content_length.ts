/** The `content_length` check (miscellaneous): Amount of text. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'content_length',
  category: 'miscellaneous',
  importance: 'low',
  source: 'page',
  order: 4080,
  rendered: true,
  texts: {
    en: {
      title: 'Amount of text',
      description:
        'The page has enough text to be useful and to be understood by search engines; thin pages rank poorly.',
      fix: 'Add substantive text about the page’s subject.',
      counted: { one: 'word', other: 'words' },
    },
  },
  value: formats.count,
  run(page) {
    const words = page.words.length;
    const min = page.thresholds.minWords;
    return { passed: words >= min, value: words, details: words >= min ? [] : [`${words} words (min ${min}).`] };
  },
} satisfies PageCheck;
