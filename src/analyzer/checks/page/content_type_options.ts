/** The `content_type_options` check (security): No MIME sniffing. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'content_type_options',
  category: 'security',
  importance: 'low',
  source: 'page',
  order: 3100,
  rendered: false,
  texts: {
    en: {
      title: 'No MIME sniffing',
      description:
        'The response sends X-Content-Type-Options: nosniff, so browsers do not guess content types and run uploaded files as scripts.',
      fix: 'Send X-Content-Type-Options: nosniff on every response.',
      learnMore: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/X-Content-Type-Options',
    },
  },
  value: formats.text,
  run(page) {
    const header = page.header('x-content-type-options');
    const passed = (header ?? '').trim().toLowerCase() === 'nosniff';
    return { passed, value: header ?? null, details: passed ? [] : ['X-Content-Type-Options is not "nosniff".'] };
  },
} satisfies PageCheck;
