/** The `charset` check (miscellaneous): Character encoding. */
import { charsetFromContentType } from '../../body.ts';
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'charset',
  category: 'miscellaneous',
  importance: 'medium',
  source: 'page',
  order: 4040,
  rendered: false,
  texts: {
    en: {
      title: 'Character encoding',
      description: 'The page declares its character encoding, so browsers do not guess it and show garbled text.',
      fix: 'Add <meta charset="utf-8"> as the first element of the <head> (or charset=utf-8 in Content-Type).',
    },
  },
  value: formats.text,
  run(page) {
    const meta = page.$('meta[charset]').attr('charset')?.trim();
    const httpEquiv = page
      .$('meta[http-equiv]')
      .toArray()
      .find((el) => (el.attribs['http-equiv'] ?? '').toLowerCase() === 'content-type');
    const charset =
      meta ||
      charsetFromContentType(httpEquiv?.attribs['content']) ||
      charsetFromContentType(page.header('content-type'));
    return {
      passed: Boolean(charset),
      value: charset ?? null,
      details: charset ? [] : ['No character encoding is declared.'],
    };
  },
} satisfies PageCheck;
