/** The `mixed_content` check (security): Mixed content. */
import * as formats from '../catalogue/formats.ts';
import { pageResources } from '../helpers.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'mixed_content',
  category: 'security',
  importance: 'medium',
  source: 'page',
  order: 3040,
  rendered: false,
  texts: {
    en: {
      title: 'Mixed content',
      description:
        'An HTTPS page loads nothing over plain HTTP. Browsers block or flag such resources, which breaks the page or its padlock.',
      fix: 'Load every script, style, image and frame over https:// (or from the same origin).',
      counted: { one: 'insecure resource', other: 'insecure resources' },
      learnMore: 'https://developer.mozilla.org/en-US/docs/Web/Security/Mixed_content',
    },
  },
  value: formats.count,
  run(page) {
    if (page.url.protocol !== 'https:') return { passed: true, value: 'not applicable (http page)', details: [] };
    const insecure = pageResources(page).filter((r) => r.url.protocol === 'http:');
    return {
      passed: insecure.length === 0,
      value: insecure.length,
      details: insecure.map((r) => page.describe(r.element, r.attribute)),
    };
  },
} satisfies PageCheck;
