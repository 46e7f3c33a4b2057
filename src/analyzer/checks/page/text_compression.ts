/** The `text_compression` check (performance): Text compression. */
import * as formats from '../catalogue/formats.ts';
import { encodingOf, kb } from '../helpers.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'text_compression',
  category: 'performance',
  importance: 'high',
  source: 'page',
  order: 2010,
  rendered: false,
  texts: {
    en: {
      title: 'Text compression',
      description:
        'The HTML is sent compressed (gzip, Brotli, deflate or zstd). Compression typically shrinks HTML by 70% or more, so the page arrives sooner.',
      fix: 'Enable gzip or Brotli compression for text responses in the web server or CDN.',
      learnMore: 'https://developer.chrome.com/docs/lighthouse/performance/uses-text-compression',
    },
  },
  value: formats.text,
  run(page) {
    const encoding = encodingOf(page);
    const passed = /\b(gzip|br|deflate|zstd)\b/.test(encoding);
    const details = passed ? [] : [`The HTML (${kb(page.decodedBytes)}) is sent uncompressed.`];
    return { passed, value: encoding || null, details };
  },
} satisfies PageCheck;
