/** The `language` check (seo): Page language. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'language',
  category: 'seo',
  importance: 'medium',
  source: 'page',
  order: 1110,
  rendered: true,
  texts: {
    en: {
      title: 'Page language',
      description:
        'The <html> element declares the page’s language. Screen readers pronounce text by it and search engines serve the page to the right audience.',
      fix: 'Add a lang attribute to <html>, for example <html lang="en">.',
      learnMore: 'https://developer.mozilla.org/en-US/docs/Web/HTML/Global_attributes/lang',
    },
  },
  value: formats.text,
  run(page) {
    const lang = (page.$('html').attr('lang') ?? '').trim();
    return { passed: lang.length > 0, value: lang || null, details: lang ? [] : ['<html> has no lang attribute.'] };
  },
} satisfies PageCheck;
