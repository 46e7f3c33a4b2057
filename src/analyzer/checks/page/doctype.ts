/** The `doctype` check (miscellaneous): Doctype. */
import { leadingDoctype } from '../../scan.ts';
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'doctype',
  category: 'miscellaneous',
  importance: 'low',
  source: 'page',
  order: 4120,
  rendered: false,
  texts: {
    en: {
      title: 'Doctype',
      description:
        'The document starts with <!DOCTYPE html>. Without it browsers render in quirks mode, with old layout rules.',
      fix: 'Put <!DOCTYPE html> on the first line of the HTML.',
    },
  },
  value: formats.text,
  run(page) {
    const doctype = leadingDoctype(page.html);
    return {
      passed: doctype !== null,
      value: doctype,
      details: doctype !== null ? [] : ['The document does not start with a <!DOCTYPE html> declaration.'],
    };
  },
} satisfies PageCheck;
