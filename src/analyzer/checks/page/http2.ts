/** The `http2` check (performance): HTTP/2 or newer. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'http2',
  category: 'performance',
  importance: 'low',
  source: 'page',
  order: 2100,
  rendered: false,
  texts: {
    en: {
      title: 'HTTP/2 or newer',
      description:
        'The page is served over HTTP/2 or HTTP/3, which load many resources over one connection in parallel, where HTTP/1.1 queues them.',
      fix: 'Enable HTTP/2 (and HTTP/3 if you can) in the web server, load balancer or CDN.',
    },
  },
  value: formats.text,
  run(page) {
    const passed = /^[23]/.test(page.httpVersion);
    return { passed, value: page.httpVersion, details: passed ? [] : [`Served over HTTP/${page.httpVersion}.`] };
  },
} satisfies PageCheck;
