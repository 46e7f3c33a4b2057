/** The `referrer_policy` check (security): Referrer policy. */
import * as formats from '../catalogue/formats.ts';
import { metaByName } from '../helpers.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'referrer_policy',
  category: 'security',
  importance: 'low',
  source: 'page',
  order: 3120,
  rendered: false,
  texts: {
    en: {
      title: 'Referrer policy',
      description:
        'The page sets a Referrer-Policy, which controls how much of its address is sent to the sites it links to.',
      fix: 'Send Referrer-Policy: strict-origin-when-cross-origin (or stricter).',
      learnMore: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Referrer-Policy',
    },
  },
  value: formats.text,
  run(page) {
    const header = page.header('referrer-policy');
    const meta = metaByName(page, 'referrer')[0]?.attribs['content'];
    const policy = header ?? meta;
    return {
      passed: Boolean(policy),
      value: policy ?? null,
      details: policy ? [] : ['No Referrer-Policy header or meta tag.'],
    };
  },
} satisfies PageCheck;
