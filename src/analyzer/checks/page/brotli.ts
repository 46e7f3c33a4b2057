/** The `brotli` check (performance): Brotli compression. */
import * as formats from '../catalogue/formats.ts';
import { encodingOf } from '../helpers.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'brotli',
  category: 'performance',
  importance: 'low',
  source: 'page',
  order: 2090,
  rendered: false,
  texts: {
    en: {
      title: 'Brotli compression',
      description: 'The HTML is compressed with Brotli, which compresses text about 15-20% better than gzip.',
      fix: 'Enable Brotli (Content-Encoding: br) in the web server or CDN.',
    },
  },
  value: formats.text,
  run(page) {
    const encoding = encodingOf(page);
    const passed = /\bbr\b/.test(encoding);
    return {
      passed,
      value: encoding || null,
      details: passed ? [] : [`Content-Encoding is ${encoding || 'none'}, not br.`],
    };
  },
} satisfies PageCheck;
