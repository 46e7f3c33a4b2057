/** The `https_encryption` check (security): HTTPS. */
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'https_encryption',
  category: 'security',
  importance: 'high',
  source: 'page',
  order: 3010,
  rendered: false,
  texts: {
    en: {
      title: 'HTTPS',
      description:
        'The page is served over HTTPS. Without it anyone on the network can read and change the page, and browsers mark it "Not secure".',
      fix: 'Install a TLS certificate (Let’s Encrypt issues them free) and serve the site over https://.',
    },
  },
  value: formats.text,
  run(page) {
    const passed = page.url.protocol === 'https:';
    return {
      passed,
      value: page.url.protocol.slice(0, -1),
      details: passed ? [] : ['The page is served over plain HTTP.'],
    };
  },
} satisfies PageCheck;
