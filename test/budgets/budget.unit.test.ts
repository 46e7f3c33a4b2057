/**
 * Budgets in Lighthouse CI's language, asserted on stored results: a lighthouserc as LHCI's
 * documentation writes one, aggregation over runs, presets, and ids we do not measure.
 */
import { describe, expect, it } from 'vitest';
import { compileGroup, parseBudget } from '../../src/budgets/budget.ts';
import { evaluateAssertions, failsBuild } from '../../src/budgets/evaluate.ts';
import { assertionTarget, lighthouseMapping } from '../../src/budgets/lighthouse-map.ts';
import type { LabFigures } from '../../src/reports/lab-samples.ts';
import type { ReportResults } from '../../src/reports/results.ts';

const lab = (lcp: number, score: number): LabFigures => ({ fcp: 400, lcp, tbt: 0, cls: 0, score, bytes: 10_000 });
const results: ReportResults = {
  title: { passed: true, importance: 'high', value: 'A page', category: 'seo', details: [] },
  largest_contentful_paint: {
    passed: true,
    importance: 'high',
    value: { ms: 1100, score: 0.91 },
    category: 'performance',
    details: [],
    rendered: true,
  },
  lab_performance_score: {
    passed: true,
    importance: 'medium',
    value: 95,
    category: 'performance',
    details: [],
    rendered: true,
  },
  render_blocking_resources: {
    passed: false,
    importance: 'medium',
    value: 2,
    category: 'performance',
    details: ['a.css', 'b.js'],
    rendered: true,
  },
  a11y_image_alt: {
    passed: false,
    importance: 'high',
    value: { outcome: 'failed', impact: 'critical', nodes: 1, weight: 10 },
    category: 'accessibility',
    details: [{}],
    rendered: true,
  },
  a11y_label: {
    passed: true,
    importance: 'medium',
    value: { outcome: 'passed', impact: null, nodes: 0, weight: 7 },
    category: 'accessibility',
    details: [],
    rendered: true,
  },
};
const runs = [lab(1000, 97), lab(1500, 88), lab(1100, 95)];

function assert(budget: unknown, measurement = { url: 'https://example.test/', results, runs }) {
  const [group] = parseBudget(budget);
  return evaluateAssertions(compileGroup(group).assertions, measurement);
}

describe('budgets', () => {
  it('reads a lighthouserc as Lighthouse CI documents it', () => {
    const out = assert({
      ci: {
        collect: { numberOfRuns: 3 },
        assert: {
          assertions: {
            'categories:performance': ['error', { minScore: 0.9 }],
            'largest-contentful-paint': ['error', { maxNumericValue: 1200, aggregationMethod: 'median' }],
            'render-blocking-resources': ['warn', { maxLength: 0 }],
            'image-alt': 'error',
            label: 'error',
            'speed-index': ['error', { maxNumericValue: 2000 }],
            'uses-http2': 'off',
          },
        },
      },
    });
    const by = (key: string) => out.filter((r) => r.key === key);
    // optimistic (the default): the best run's score, 0.97
    expect(by('categories:performance')[0]).toMatchObject({
      status: 'passed',
      actual: 0.97,
      values: [0.97, 0.88, 0.95],
    });
    expect(by('largest-contentful-paint')[0]).toMatchObject({
      status: 'passed',
      actual: 1100,
      name: 'maxNumericValue',
    });
    expect(by('render-blocking-resources')[0]).toMatchObject({ status: 'failed', level: 'warn', actual: 2 });
    expect(by('image-alt')[0]).toMatchObject({
      status: 'failed',
      check: 'a11y_image_alt',
      name: 'minScore',
      expected: 0.9,
    });
    expect(by('label')[0]).toMatchObject({ status: 'passed' });
    expect(by('speed-index')[0]).toMatchObject({ status: 'not_measured', check: null });
    expect(by('uses-http2')).toEqual([]);
    expect(failsBuild(out)).toBe(true);
  });

  it('aggregates as asked', () => {
    const pick = (aggregationMethod: string) =>
      assert({ assertions: { 'categories:performance': ['error', { minScore: 0.9, aggregationMethod }] } })[0];
    expect(pick('optimistic').actual).toBe(0.97);
    expect(pick('pessimistic')).toMatchObject({ actual: 0.88, status: 'failed' });
    expect(pick('median').actual).toBe(0.95);
    expect(pick('median-run').actual).toBe(0.95); // the stored (representative) run's
  });

  it('says a rendered check needs rendering on a raw report', () => {
    const raw = { title: results.title };
    const out = assert(
      {
        assertions: {
          'largest-contentful-paint': 'error',
          'document-title': 'warn',
          'categories:accessibility': 'error',
        },
      },
      {
        url: 'https://example.test/',
        results: raw,
        runs: [],
      },
    );
    expect(out.map((r) => [r.key, r.status, r.message])).toEqual([
      ['largest-contentful-paint', 'not_measured', 'largest_contentful_paint needs rendering (render=1).'],
      ['document-title', 'not_measured', 'a11y_document_title needs rendering (render=1).'],
      ['categories:accessibility', 'not_measured', 'The accessibility category needs rendering (render=1).'],
    ]);
  });

  it('expands presets over the audits we measure and lists the rest', () => {
    const [group] = parseBudget({ preset: 'lighthouse:recommended' });
    const compiled = compileGroup(group);
    expect(compiled.assertions.find((a) => a.key === 'offscreen-images')).toMatchObject({
      level: 'error',
      maxLength: 0,
    });
    expect(compiled.assertions.every((a) => a.target !== undefined)).toBe(true);
    expect(compiled.uncovered).toContain('speed-index');
    expect(compileGroup(parseBudget({ preset: 'lighthouse:no-pwa' })[0]).assertions.length).toBe(
      compiled.assertions.length,
    );
  });

  it('takes our own form, per path pattern, and refuses what it does not know', () => {
    const groups = parseBudget({
      budgets: [{ path: '/blog/*', assertions: { largest_contentful_paint: ['error', { maxNumericValue: 2500 }] } }],
    });
    expect(groups[0]).toMatchObject({ path: '/blog/*' });
    const g = compileGroup(groups[0]);
    expect(g.matches(new URL('https://x.test/blog/a'))).toBe(true);
    expect(g.matches(new URL('https://x.test/shop'))).toBe(false);
    expect(() => parseBudget({ assertions: { x: 'fatal' } })).toThrow();
    expect(() => parseBudget({ assertions: { x: ['error', { minScore: 2 }] } })).toThrow();
    expect(() => parseBudget({ assertMatrix: [{ matchingUrlPattern: '(a)\\1', assertions: {} }] })).toThrow();
    expect(() => parseBudget({ budgets: [{ path: 'blog' }] })).toThrow();
  });

  it('maps Lighthouse ids onto checks in one table', () => {
    expect(assertionTarget('first-contentful-paint')).toEqual({
      kind: 'check',
      check: 'first_contentful_paint',
      metric: 'fcp',
    });
    expect(assertionTarget('button-name')).toEqual({ kind: 'check', check: 'a11y_button_name' });
    expect(assertionTarget('categories:seo')).toBeUndefined();
    expect(assertionTarget('firstContentfulPaint')).toBeUndefined(); // kebab-cased by compileGroup
    expect(lighthouseMapping().length).toBeGreaterThan(80);
  });
});
