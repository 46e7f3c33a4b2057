/** The `content_security_policy` check (security): Content Security Policy. */
import type { PageContext } from '../../page.ts';
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

/** The Content-Security-Policy header, or the content of a <meta http-equiv> one. */
function contentSecurityPolicy(page: PageContext): { source: string; policy: string } | undefined {
  const header = page.header('content-security-policy');
  if (header) return { source: 'header', policy: header };
  const meta = page
    .$('meta[http-equiv]')
    .toArray()
    .find((el) => (el.attribs['http-equiv'] ?? '').toLowerCase() === 'content-security-policy');
  return meta?.attribs['content'] ? { source: 'meta', policy: meta.attribs['content'] } : undefined;
}

export default {
  id: 'content_security_policy',
  category: 'security',
  importance: 'medium',
  source: 'page',
  order: 3090,
  rendered: false,
  texts: {
    en: {
      title: 'Content Security Policy',
      description:
        'The page sets a Content-Security-Policy (header or meta tag), which limits where scripts and other resources may come from and blunts cross-site scripting.',
      fix: "Send a Content-Security-Policy header, starting with a policy such as default-src 'self' and widening it only where the page needs it.",
      fields: { source: 'Set by', policy: 'Policy' },
      learnMore: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/CSP',
    },
  },
  value: formats.table({ source: { type: 'text' }, policy: { type: 'text' } }),
  run(page) {
    const csp = contentSecurityPolicy(page);
    return {
      passed: csp !== undefined,
      value: csp ?? null,
      details: csp ? [] : ['No Content-Security-Policy header or meta tag.'],
    };
  },
} satisfies PageCheck;
