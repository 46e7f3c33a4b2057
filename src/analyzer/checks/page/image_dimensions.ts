/** The `image_dimensions` check (performance): Image dimensions. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'image_dimensions',
  category: 'performance',
  importance: 'low',
  source: 'page',
  order: 2110,
  rendered: true,
  texts: {
    en: {
      title: 'Image dimensions',
      description:
        'Every <img> has width and height attributes. Without them the browser cannot reserve space, and the layout jumps when images load.',
      fix: 'Add width and height attributes with each image’s intrinsic size (CSS can still scale it).',
      fields: { images: 'Images', missingDimensions: 'Without width and height' },
      learnMore: 'https://web.dev/articles/optimize-cls#images-without-dimensions',
    },
  },
  value: formats.table({ images: formats.n('count'), missingDimensions: formats.n('count') }),
  run(page) {
    const images = page.$('img').toArray();
    const missing = images.filter((el) => el.attribs['width'] === undefined || el.attribs['height'] === undefined);
    return {
      passed: missing.length === 0,
      value: { images: images.length, missingDimensions: missing.length },
      details: missing.map((el) => page.describe(el, 'src')),
    };
  },
} satisfies PageCheck;
