/** The `page_size` check (performance): HTML size. */
import * as formats from '../catalogue/formats.ts';
import { kb } from '../helpers.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'page_size',
  category: 'performance',
  importance: 'medium',
  source: 'page',
  order: 2030,
  rendered: false,
  texts: {
    en: {
      title: 'HTML size',
      description:
        'The size of the HTML document itself (uncompressed). Large documents take longer to download and parse.',
      fix: 'Remove inline data, large inline scripts or styles and unused markup; paginate long lists.',
    },
  },
  value: formats.num('bytes'),
  run(page) {
    const bytes = page.decodedBytes;
    const max = page.thresholds.maxPageSizeBytes;
    return {
      passed: bytes <= max,
      value: bytes,
      details: bytes <= max ? [] : [`The HTML is ${kb(bytes)} (max ${kb(max)}).`],
    };
  },
} satisfies PageCheck;
