import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pageChecks, validatePageChecks } from '../../../src/analyzer/checks/registry.ts';
import type { PageCheck } from '../../../src/analyzer/checks/types.ts';

/** A complete page check but for what `extra` overrides. */
function check(id: string, order: number, extra: Partial<PageCheck> = {}): Partial<PageCheck> {
  return {
    id,
    category: 'seo',
    importance: 'low',
    source: 'page',
    order,
    rendered: false,
    texts: { en: { title: 'T', description: 'D.', fix: 'F.' } },
    value: { unit: 'text', format: { type: 'text' } },
    run: () => ({ passed: true, value: null }),
    ...extra,
  };
}

describe('the registry of page checks', () => {
  it('lists every module of checks/page/, each named after its id', () => {
    const folder = new URL('../../../src/analyzer/checks/page/', import.meta.url);
    const files = readdirSync(folder)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.slice(0, -3))
      .sort();
    expect(pageChecks.map((c) => c.id).sort()).toEqual(files);
  });

  it('sorts by order', () => {
    expect(validatePageChecks([check('b', 20), check('a', 30), check('c', 10)]).map((c) => c.id)).toEqual([
      'c',
      'b',
      'a',
    ]);
    const orders = pageChecks.map((c) => c.order);
    expect(orders).toEqual([...orders].sort((x, y) => x - y));
  });

  it('refuses a check that is not complete, twice listed, or sharing an order, naming it', () => {
    expect(() => validatePageChecks([check('a', 10, { texts: { en: { title: 'T' } } as PageCheck['texts'] })])).toThrow(
      /Page check a has no title, description or fix in en/,
    );
    expect(() => validatePageChecks([check('a', 10, { run: undefined })])).toThrow(/a has no run function/);
    expect(() => validatePageChecks([check('A b', 10)])).toThrow(/has no id of lowercase/);
    expect(() => validatePageChecks([check('a', 10), check('a', 20)])).toThrow(/a is listed twice/);
    expect(() => validatePageChecks([check('a', 10), check('b', 10)])).toThrow(/share order 10/);
  });
});
