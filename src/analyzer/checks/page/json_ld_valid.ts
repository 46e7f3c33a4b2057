/** The `json_ld_valid` check (miscellaneous): Valid JSON-LD. */
import * as formats from '../catalogue/formats.ts';
import { jsonLdBlocks } from '../helpers.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'json_ld_valid',
  category: 'miscellaneous',
  importance: 'medium',
  source: 'page',
  order: 4020,
  rendered: true,
  texts: {
    en: {
      title: 'Valid JSON-LD',
      description: 'Every JSON-LD block parses as JSON. A block with a syntax error is ignored entirely.',
      fix: 'Correct the JSON syntax of the blocks listed (a missing comma or quote is typical); a JSON validator shows where.',
      fields: { blocks: 'JSON-LD blocks', invalid: 'Invalid' },
    },
  },
  value: formats.table({ blocks: formats.n('count'), invalid: formats.n('count') }),
  run(page) {
    const blocks = jsonLdBlocks(page);
    const details: string[] = [];
    blocks.forEach((block, i) => {
      try {
        JSON.parse(block);
      } catch (err) {
        details.push(`JSON-LD block ${i + 1}: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
    return { passed: details.length === 0, value: { blocks: blocks.length, invalid: details.length }, details };
  },
} satisfies PageCheck;
