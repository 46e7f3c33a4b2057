/** The `plaintext_email` check (security): E-mail addresses in the page. */
import type { PageContext } from '../../page.ts';
import { findEmailAddresses } from '../../scan.ts';
import * as formats from '../catalogue/formats.ts';
import { decodeSafe } from '../helpers.ts';
import type { PageCheck } from '../types.ts';

/** Plaintext e-mail addresses in the visible text and in mailto: links. */
function findEmails(page: PageContext): string[] {
  const found = new Set<string>(findEmailAddresses(page.text));
  for (const el of page.$('a[href^="mailto:" i]').toArray()) {
    const address = decodeSafe((el.attribs['href'] ?? '').slice(7).split('?')[0] ?? '').trim();
    if (address) found.add(address);
  }
  return [...found];
}

export default {
  id: 'plaintext_email',
  category: 'security',
  importance: 'low',
  source: 'page',
  order: 3070,
  rendered: true,
  texts: {
    en: {
      title: 'E-mail addresses in the page',
      description: 'E-mail addresses written in the page’s text or mailto: links. Harvesters collect them for spam.',
      fix: 'Replace the addresses with a contact form, or obfuscate them.',
      counted: { one: 'address', other: 'addresses' },
    },
  },
  value: formats.count,
  run(page) {
    const emails = findEmails(page);
    return { passed: emails.length === 0, value: emails.length, details: emails };
  },
} satisfies PageCheck;
