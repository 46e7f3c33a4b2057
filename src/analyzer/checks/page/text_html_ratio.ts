/** The `text_html_ratio` check (miscellaneous): Text to HTML ratio. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'text_html_ratio',
  category: 'miscellaneous',
  importance: 'low',
  source: 'page',
  order: 4090,
  rendered: false,
  texts: {
    en: {
      title: 'Text to HTML ratio',
      description:
        'The share of the HTML that is visible text. A low ratio means heavy markup, inline code or little content.',
      fix: 'Move inline scripts and styles to files, remove unneeded wrappers, or add text.',
    },
  },
  value: formats.num('percent', 1),
  run(page) {
    const ratio = page.html.length === 0 ? 0 : (page.text.length / page.html.length) * 100;
    const rounded = Math.round(ratio * 10) / 10;
    const min = page.thresholds.minTextHtmlRatio;
    return {
      passed: ratio >= min,
      value: rounded,
      details: ratio >= min ? [] : [`Text is ${rounded}% of the HTML (min ${min}%).`],
    };
  },
} satisfies PageCheck;
