/**
 * The `gsb` check (phpRank's): the page's URL looked up in Google Safe Browsing. Its identity,
 * words and value format are here; src/reports/gsb.ts measures it (only when GSB_API_KEY is
 * set), so it is no page check of checks/page/.
 */
import * as formats from './catalogue/formats.ts';
import type { DescribedCheck } from './types.ts';

/** `gsb`; `order` places it among the page checks (after https_encryption, see PageCheck). */
export const gsbCheck = {
  id: 'gsb',
  category: 'security',
  importance: 'high',
  source: 'safe-browsing',
  order: 3020,
  texts: {
    en: {
      title: 'Safe Browsing',
      description:
        'Google Safe Browsing does not list the address for malware, phishing or unwanted software. Listed sites get a full-page warning in browsers.',
      fix: 'Remove the malicious content, secure the site, then request a review in Google Search Console.',
      learnMore: 'https://developers.google.com/search/docs/monitor-debug/security/malware',
    },
  },
  value: formats.list,
} as const satisfies DescribedCheck & { order: number };
