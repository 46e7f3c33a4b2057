/** The `http_requests` check (performance): Requests. */
import * as formats from '../catalogue/formats.ts';
import { pageResources } from '../helpers.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'http_requests',
  category: 'performance',
  importance: 'medium',
  source: 'page',
  order: 2040,
  rendered: false,
  texts: {
    en: {
      title: 'Requests',
      description:
        'How many resources (scripts, stylesheets, images, frames…) the page makes the browser fetch. Every request costs time, more so on mobile networks.',
      fix: 'Combine or remove scripts and stylesheets, lazy-load images below the fold and drop third-party embeds you do not need.',
      fields: {
        total: 'Requests',
        bytes: 'Bytes transferred',
        byType: 'By type',
        refused: 'Refused by the address guard',
      },
    },
  },
  value: formats.table({
    total: formats.n('count'),
    bytes: formats.n('bytes'),
    byType: { type: 'counts' },
    refused: formats.n('count'),
  }),
  run(page) {
    const resources = pageResources(page);
    const byType: Record<string, number> = {};
    for (const r of resources) byType[r.type] = (byType[r.type] ?? 0) + 1;
    const max = page.thresholds.maxRequests;
    const passed = resources.length <= max;
    const details = passed ? [] : Object.entries(byType).map(([type, n]) => `${n} ${type} request(s)`);
    return { passed, value: { total: resources.length, byType }, details };
  },
} satisfies PageCheck;
