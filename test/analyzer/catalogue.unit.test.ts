/**
 * The catalogue of checks: one complete entry for every check the analyzer can produce (page
 * checks, lab checks of a rendered page, Safe Browsing), none for a check that does not exist,
 * and values formatted in their units.
 */
import { describe, expect, it } from 'vitest';
import { checkCatalogue, catalogueEntry, locales } from '../../src/analyzer/checks/catalogue/index.ts';
import { checkDefinitions, describedCheck } from '../../src/analyzer/checks/definitions.ts';
import { accessibilityChecks } from '../../src/analyzer/render/accessibility-results.ts';
import { labChecks } from '../../src/analyzer/render/lab.ts';
import type { RenderedPage } from '../../src/analyzer/render/render.ts';
import { allChecks } from '../../src/analyzer/run-checks.ts';
import { safeBrowsingCheck } from '../../src/reports/gsb.ts';
import { formatCheckValue, formatNumber, inline } from '../../views/share-page/format-value.ts';

/** A rendered page with some of everything, so every lab check reports. */
function renderedPage(): RenderedPage {
  return {
    finalUrl: 'https://example.test/',
    status: 200,
    html: '<!doctype html><title>x</title>',
    facts: {
      fcpMs: 800,
      lcpMs: 2000,
      lcpElement: '<img>',
      shifts: [[100, 0.2]],
      longTasks: [[900, 300]],
      dclMs: 500,
      images: [],
      renderBlocking: ['https://example.test/app.css'],
      devicePixelRatio: 1,
    },
    network: [{ url: 'https://example.test/', type: 'document', bytes: 5000, failed: false }],
    consoleErrors: ['boom'],
    mixedContent: [],
    blocked: [],
    timedOut: false,
    accessibility: {
      version: '4.14.1',
      violations: [
        {
          rule: 'image-alt',
          impact: 'critical',
          count: 1,
          nodes: [{ selector: 'img', snippet: '<img src="a.png">', why: 'No alt.' }],
        },
      ],
      incomplete: [],
      inapplicable: ['video-caption'],
      elapsedMs: 120,
    },
    elapsedMs: 1200,
  };
}

/** Every id the service can put into a report's results, from the implementations themselves. */
async function producedIds(): Promise<Set<string>> {
  const ids = new Set<string>(allChecks.map((c) => c.id));
  for (const c of labChecks(renderedPage(), 25)) ids.add(c.id);
  for (const c of accessibilityChecks(renderedPage().accessibility)) ids.add(c.id);
  // gsb: its entry comes from a Safe Browsing answer (a local fake that lists the URL).
  const fake = await import('node:http').then(
    ({ createServer }) =>
      new Promise<import('node:http').Server>((resolve) => {
        const s = createServer((_req, res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ matches: [{ threatType: 'MALWARE' }] }));
        });
        s.listen(0, '127.0.0.1', () => resolve(s));
      }),
  );
  try {
    const { port } = fake.address() as import('node:net').AddressInfo;
    const entry = await safeBrowsingCheck('https://example.test/', {
      apiKey: 'k',
      baseUrl: `http://127.0.0.1:${port}`,
    });
    expect(entry).toMatchObject({ passed: false, category: 'security' });
    ids.add('gsb');
  } finally {
    fake.close();
  }
  return ids;
}

describe('the catalogue of checks', () => {
  it('describes exactly the checks the analyzer can produce, no more', async () => {
    const produced = await producedIds();
    const described = checkCatalogue().map((e) => e.id);
    expect(new Set(described).size).toBe(described.length);
    expect([...described].sort()).toEqual([...produced].sort());
    expect(described).toHaveLength(59 + 57);
    expect(describedCheck('nonexistent_check')).toBeUndefined();
    expect(described).not.toContain('nonexistent_check');
  });

  it('gives every entry, in every language, a title, description, fix, unit and format', () => {
    for (const locale of locales) {
      const titles = new Set<string>();
      for (const e of checkCatalogue(locale)) {
        const where = `${locale} ${e.id}`;
        expect(e.title.trim(), where).not.toBe('');
        expect(e.title, where).not.toBe(e.id);
        expect(e.title, where).not.toContain('_');
        titles.add(e.title);
        expect(e.description.trim().length, where).toBeGreaterThan(30);
        // One or two sentences.
        expect(e.description.split(/[.!?](?:\s|$)/).filter((s) => s.trim()).length, where).toBeLessThanOrEqual(2);
        expect(e.fix.trim().length, where).toBeGreaterThan(15);
        expect(e.unit, where).toBeTruthy();
        expect(e.format.type, where).toBeTruthy();
        if (e.format.type === 'fields') {
          expect(Object.keys(e.fields ?? {}).sort(), where).toEqual(Object.keys(e.format.fields).sort());
        }
        if (e.unit === 'count') expect(e.counted?.other, where).toMatch(/^[a-z ]+$/);
        if (e.learnMore) expect(e.learnMore, where).toMatch(/^https:\/\//);
      }
      expect(titles.size).toBe(checkDefinitions.length);
    }
  });

  it('keeps identity in the definitions: category and importance as the implementations report them', () => {
    for (const check of allChecks) {
      expect(catalogueEntry(check.id)).toMatchObject({
        category: check.category,
        importance: check.importance,
      });
    }
    for (const c of labChecks(renderedPage(), 25)) {
      expect(catalogueEntry(c.id)).toMatchObject({ category: c.category, importance: c.importance });
    }
  });
});

describe('values in their units', () => {
  it('formats numbers by unit', () => {
    expect(formatNumber(38, 'milliseconds')).toBe('38 ms');
    expect(formatNumber(12_500, 'milliseconds')).toBe('12.5 s');
    expect(formatNumber(3044, 'bytes')).toBe('3 KiB');
    expect(formatNumber(812, 'bytes')).toBe('812 bytes');
    expect(formatNumber(5 * 1024 * 1024, 'bytes')).toBe('5 MiB');
    expect(formatNumber(12.34, 'percent')).toBe('12.3 %');
    expect(formatNumber(87, 'score')).toBe('87 / 100');
    expect(formatNumber(404, 'http_status')).toBe('HTTP 404');
    expect(formatNumber(1234, 'count', { counted: { one: 'link', other: 'links' } })).toBe('1,234 links');
    expect(formatNumber(1, 'count', { counted: { one: 'link', other: 'links' } })).toBe('1 link');
    expect(formatNumber(0.12345, 'unitless')).toBe('0.123');
  });

  it('shows each check’s value as text, a list or a short table, never JSON', () => {
    const shown = (id: string, value: unknown) => inline(formatCheckValue(value, catalogueEntry(id)));
    expect(shown('load_time', 38)).toBe('38 ms');
    expect(shown('page_size', 3044)).toBe('3 KiB');
    expect(shown('in_page_links', 7)).toBe('7 links');
    expect(shown('largest_contentful_paint', { ms: 1584, score: 0.63 })).toBe('1,584 ms');
    expect(shown('content_keywords', { keywords: ['garden', 'tools'], missing: [] })).toBe(
      'Keywords of the title: garden, tools; Missing from the text: None',
    );
    expect(shown('cache_headers', { cacheControl: null, etag: '"x"', lastModified: null })).toBe(
      'Cache-Control: None; ETag: "x"; Last-Modified: None',
    );
    expect(
      shown('http_requests', { total: 3, bytes: 4096, byType: { script: { count: 2, bytes: 2048 } }, refused: 0 }),
    ).toBe('Requests: 3; Bytes transferred: 4 KiB; By type: script: 2 (2 KiB); Refused by the address guard: 0');
    expect(shown('robots', { status: 200, rules: true, allowed: true })).toBe(
      'robots.txt status: HTTP 200; Has rules: Yes; Page allowed: Yes',
    );
    // A value of another shape (an older report) is still shown by what it is.
    expect(shown('load_time', { total: 5, nested: { a: 1 } })).toBe('Total: 5; Nested: A: 1');
    expect(inline(formatCheckValue({ someKey: [1, 2] }, undefined))).toBe('Some key: 1, 2');
  });
});
