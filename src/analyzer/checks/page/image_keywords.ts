/** The `image_keywords` check (seo): Image alt texts. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'image_keywords',
  category: 'seo',
  importance: 'high',
  source: 'page',
  order: 1050,
  rendered: true,
  texts: {
    en: {
      title: 'Image alt texts',
      description:
        'Every <img> has an alt attribute. Alt text is read aloud by screen readers and tells search engines what an image shows.',
      fix: 'Add alt="…" describing each image; use alt="" for purely decorative images.',
      fields: { images: 'Images', missingAlt: 'Without alt' },
      learnMore: 'https://developer.mozilla.org/en-US/docs/Web/API/HTMLImageElement/alt',
    },
  },
  value: formats.table({ images: formats.n('count'), missingAlt: formats.n('count') }),
  run(page) {
    const images = page.$('img').toArray();
    const missing = images.filter((el) => el.attribs['alt'] === undefined);
    return {
      passed: missing.length === 0,
      value: { images: images.length, missingAlt: missing.length },
      details: missing.map((el) => page.describe(el, 'src')),
    };
  },
} satisfies PageCheck;
