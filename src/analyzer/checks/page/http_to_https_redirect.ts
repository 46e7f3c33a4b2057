/** The `http_to_https_redirect` check (security): HTTP redirects to HTTPS. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'http_to_https_redirect',
  category: 'security',
  importance: 'medium',
  source: 'page',
  order: 3030,
  rendered: false,
  texts: {
    en: {
      title: 'HTTP redirects to HTTPS',
      description:
        'The http:// address redirects to https://, so visitors and links using the old address end up on the secure page.',
      fix: 'Redirect every http:// request permanently (301) to the same path on https://.',
    },
  },
  value: formats.url,
  run(page) {
    if (page.url.protocol !== 'https:') {
      return { passed: false, value: null, details: ['The page is not served over HTTPS.'] };
    }
    if (page.requestedUrl.protocol === 'http:') return { passed: true, value: page.url.href, details: [] };
    const probe = page.aux?.httpVariant;
    if (!probe) return { passed: false, value: null, details: ['The http:// variant was not fetched.'] };
    const passed = probe.finalUrl?.startsWith('https://') ?? false;
    const detail = probe.error ?? `${probe.url} does not redirect to HTTPS (status ${probe.status}).`;
    return { passed, value: probe.finalUrl ?? null, details: passed ? [] : [detail] };
  },
} satisfies PageCheck;
