/** The `defer_javascript` check (performance): Deferred scripts. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'defer_javascript',
  category: 'performance',
  importance: 'low',
  source: 'page',
  order: 2060,
  rendered: false,
  texts: {
    en: {
      title: 'Deferred scripts',
      description:
        'Scripts in the <head> are loaded with async or defer (or as modules). A plain script stops the browser from rendering until it has been fetched and run.',
      fix: 'Add defer (or async) to <script src> tags in the <head>, or move them to the end of <body>.',
      counted: { one: 'blocking script', other: 'blocking scripts' },
    },
  },
  value: formats.count,
  run(page) {
    const blocking = page
      .$('head script[src]')
      .toArray()
      .filter((el) => {
        const type = (el.attribs['type'] ?? '').trim().toLowerCase();
        if (type === 'module') return false;
        if (type && !/javascript|ecmascript|^text\/jscript$/.test(type)) return false;
        return el.attribs['async'] === undefined && el.attribs['defer'] === undefined;
      });
    return {
      passed: blocking.length === 0,
      value: blocking.length,
      details: blocking.map((el) => page.describe(el, 'src')),
    };
  },
} satisfies PageCheck;
