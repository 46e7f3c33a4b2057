/** The `inline_css` check (miscellaneous): Inline styles. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'inline_css',
  category: 'miscellaneous',
  importance: 'low',
  source: 'page',
  order: 4100,
  rendered: true,
  texts: {
    en: {
      title: 'Inline styles',
      description:
        'Elements with a style attribute. Inline styles cannot be cached or reused, and they make a strict CSP harder.',
      fix: 'Move the styles into a stylesheet and use classes.',
      counted: { one: 'element', other: 'elements' },
    },
  },
  value: formats.count,
  run(page) {
    const styled = page.$('[style]').toArray();
    return {
      passed: styled.length === 0,
      value: styled.length,
      details: styled.map((el) => page.describe(el, 'style')),
    };
  },
} satisfies PageCheck;
