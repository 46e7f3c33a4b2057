/** The `hsts` check (security): Strict Transport Security. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'hsts',
  category: 'security',
  importance: 'medium',
  source: 'page',
  order: 3080,
  rendered: false,
  texts: {
    en: {
      title: 'Strict Transport Security',
      description:
        'The HTTPS response sends Strict-Transport-Security with a max-age, so browsers never contact the site over plain HTTP again.',
      fix: 'Send Strict-Transport-Security: max-age=31536000 (add includeSubDomains when every subdomain has HTTPS).',
      learnMore: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Strict-Transport-Security',
    },
  },
  value: formats.text,
  run(page) {
    const header = page.header('strict-transport-security');
    const maxAge = Number(/max-age\s*=\s*"?(\d+)/i.exec(header ?? '')?.[1] ?? 0);
    const passed = page.url.protocol === 'https:' && maxAge > 0;
    const details = passed
      ? []
      : [header ? `Strict-Transport-Security: ${header}` : 'No Strict-Transport-Security header.'];
    return { passed, value: header ?? null, details };
  },
} satisfies PageCheck;
