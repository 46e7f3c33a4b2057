/** The `unsafe_cross_origin_links` check (security): Safe external links. */
import * as formats from '../catalogue/formats.ts';
import { relTokens } from '../helpers.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'unsafe_cross_origin_links',
  category: 'security',
  importance: 'medium',
  source: 'page',
  order: 3060,
  rendered: true,
  texts: {
    en: {
      title: 'Safe external links',
      description:
        'Links that open another site in a new tab (target="_blank") carry rel="noopener" or "noreferrer", so the other page cannot control this one.',
      fix: 'Add rel="noopener noreferrer" to links with target="_blank" that point to other sites.',
      counted: { one: 'unsafe link', other: 'unsafe links' },
      learnMore: 'https://developer.mozilla.org/en-US/docs/Web/HTML/Attributes/rel/noopener',
    },
  },
  value: formats.count,
  run(page) {
    const unsafe = page
      .$('a[target][href]')
      .toArray()
      .filter((el) => {
        if ((el.attribs['target'] ?? '').toLowerCase() !== '_blank') return false;
        const url = page.resolve(el.attribs['href']);
        if (!url || url.origin === page.url.origin || !url.protocol.startsWith('http')) return false;
        const rel = relTokens(el);
        return !rel.includes('noopener') && !rel.includes('noreferrer');
      });
    return {
      passed: unsafe.length === 0,
      value: unsafe.length,
      details: unsafe.map((el) => page.describe(el, 'href')),
    };
  },
} satisfies PageCheck;
