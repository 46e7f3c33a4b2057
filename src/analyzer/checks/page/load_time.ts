/** The `load_time` check (performance): Server response time. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'load_time',
  category: 'performance',
  importance: 'medium',
  source: 'page',
  order: 2020,
  rendered: false,
  texts: {
    en: {
      title: 'Server response time',
      description:
        'How long the HTML took to arrive in full, from the request to the last byte. A slow document delays everything else on the page.',
      fix: 'Cache rendered pages, speed up slow database queries or server code, or serve the page from a CDN close to visitors.',
    },
  },
  value: formats.num('milliseconds'),
  run(page) {
    const ms = Math.round(page.timings.totalMs);
    const max = page.thresholds.maxLoadTimeMs;
    return { passed: ms <= max, value: ms, details: ms <= max ? [] : [`The page took ${ms} ms to load (max ${max}).`] };
  },
} satisfies PageCheck;
