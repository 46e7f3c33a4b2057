/** The `frame_protection` check (security): Frame protection. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'frame_protection',
  category: 'security',
  importance: 'low',
  source: 'page',
  order: 3110,
  rendered: false,
  texts: {
    en: {
      title: 'Frame protection',
      description:
        'The page says who may embed it, with X-Frame-Options or CSP frame-ancestors. Otherwise another site can frame it and trick people into clicking (clickjacking).',
      fix: "Send Content-Security-Policy: frame-ancestors 'self' (or X-Frame-Options: SAMEORIGIN).",
      fields: { xFrameOptions: 'X-Frame-Options', frameAncestors: 'CSP frame-ancestors' },
      learnMore: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Content-Security-Policy/frame-ancestors',
    },
  },
  value: formats.table({ xFrameOptions: { type: 'text' }, frameAncestors: { type: 'boolean' } }),
  run(page) {
    const xfo = (page.header('x-frame-options') ?? '').trim().toLowerCase();
    const csp = page.header('content-security-policy') ?? '';
    const passed = xfo === 'deny' || xfo === 'sameorigin' || /(^|;)\s*frame-ancestors\s/i.test(csp);
    const value = {
      xFrameOptions: page.header('x-frame-options') ?? null,
      frameAncestors: /frame-ancestors/i.test(csp),
    };
    return { passed, value, details: passed ? [] : ['Neither X-Frame-Options nor CSP frame-ancestors is set.'] };
  },
} satisfies PageCheck;
