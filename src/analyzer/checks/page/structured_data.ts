/** The `structured_data` check (miscellaneous): Structured data. */
import * as formats from '../catalogue/formats.ts';
import { jsonLdBlocks } from '../helpers.ts';
import type { PageCheck } from '../types.ts';

function jsonLdTypes(value: unknown, out: Set<string>, depth = 0): void {
  if (depth > 6 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) jsonLdTypes(item, out, depth + 1);
    return;
  }
  const record = value as Record<string, unknown>;
  const type = record['@type'];
  if (typeof type === 'string') out.add(type);
  else if (Array.isArray(type)) for (const t of type) if (typeof t === 'string') out.add(t);
  if (record['@graph']) jsonLdTypes(record['@graph'], out, depth + 1);
}

export default {
  id: 'structured_data',
  category: 'miscellaneous',
  importance: 'medium',
  source: 'page',
  order: 4010,
  rendered: true,
  texts: {
    en: {
      title: 'Structured data',
      description:
        'The page describes itself with JSON-LD, microdata or RDFa. Search engines use it for rich results (ratings, prices, events…).',
      fix: 'Add a <script type="application/ld+json"> block with the schema.org type that fits the page (Article, Product, Organization…).',
      fields: { jsonLd: 'JSON-LD blocks', microdata: 'Microdata items', rdfa: 'RDFa items', types: 'Types' },
      learnMore: 'https://developers.google.com/search/docs/appearance/structured-data/intro-structured-data',
    },
  },
  value: formats.table({
    jsonLd: formats.n('count'),
    microdata: formats.n('count'),
    rdfa: formats.n('count'),
    types: { type: 'list' },
  }),
  run(page) {
    const types = new Set<string>();
    let jsonLd = 0;
    for (const block of jsonLdBlocks(page)) {
      try {
        jsonLdTypes(JSON.parse(block), types);
        jsonLd++;
      } catch {
        // invalid blocks do not count; json_ld_valid reports them
      }
    }
    const microdata = page.$('[itemscope]').toArray();
    for (const el of microdata) if (el.attribs['itemtype']) types.add(el.attribs['itemtype']);
    const rdfa = page.$('[typeof], [vocab]').toArray();
    for (const el of rdfa) if (el.attribs['typeof']) types.add(el.attribs['typeof']);
    const value = { jsonLd, microdata: microdata.length, rdfa: rdfa.length, types: [...types] };
    const passed = jsonLd + microdata.length + rdfa.length > 0;
    return { passed, value, details: passed ? [] : ['No valid JSON-LD, microdata or RDFa found.'] };
  },
} satisfies PageCheck;
