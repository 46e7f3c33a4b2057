/**
 * The accessibility category in real Chromium: for each kind of fault a page with it fails
 * exactly the checks it should and the same page done right fails none; what axe cannot decide
 * is listed as needs review and not failed; a strict CSP and a page's own `window.axe` change
 * nothing; the report's overall score leaves the category out.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResult } from '../../../src/analyzer/checks/types.ts';
import { defaultAnalyzerOptions } from '../../../src/analyzer/options.ts';
import { RenderingAnalyzer, type RenderedAnalysis } from '../../../src/analyzer/render/analyzer.ts';
import { scoreResults } from '../../../src/analyzer/scoring.ts';
import { startFixtureServer, type FixtureServer } from '../fixtures/server.ts';
import { reportScoreOf } from '../../helpers/report-score.ts';
import { a11yFixtures, a11ySite } from './a11y-fixtures.ts';
import { chromiumPath, html } from './fixtures.ts';
import { parseTargetUrl } from '../../../src/analyzer/address-guard.ts';

let server: FixtureServer;
let analyzer: RenderingAnalyzer;
// Deadlines far above a render's: this suite is about what axe finds, and on a loaded two-core
// machine two renders with axe side by side can take longer than the defaults allow.
const options = { ...defaultAnalyzerOptions({ isAllowedAddress: (ip) => ip === '127.0.0.1' }), totalTimeoutMs: 60_000 };

/** A page that forbids every script and defines its own `axe`, with two faults. */
const hostile = `<!doctype html><html><head><meta charset="utf-8"><title>Hostile</title>
<script>window.axe = { run: () => Promise.resolve({ violations: [], incomplete: [], inapplicable: [], passes: [] }) };</script>
</head><body><main><h1>Hostile</h1><img src="/a11y/img.gif" width="10" height="10"></main></body></html>`;

beforeAll(async () => {
  expect(existsSync(chromiumPath), `Chromium at ${chromiumPath}`).toBe(true);
  server = await startFixtureServer({
    ...a11ySite(),
    '/a11y/csp': {
      headers: { ...html, 'content-security-policy': "default-src 'self'; script-src 'none'" },
      body: hostile,
    },
    '/a11y/own-axe': { headers: html, body: hostile },
  });
  analyzer = new RenderingAnalyzer({
    mode: 'always',
    chromiumPath,
    contexts: 2,
    timeoutMs: 55_000,
    maxHeapMb: 256,
    maxBytes: 50e6,
    settleMs: 1500,
  });
});

afterAll(async () => {
  await analyzer?.close();
  await server?.close();
});

type A11yCheck = CheckResult & {
  value: { outcome: string; impact: string | null; nodes: number };
  rendered?: boolean;
};

function a11y(result: RenderedAnalysis): A11yCheck[] {
  return (result.results.accessibility ?? []) as A11yCheck[];
}

const ids = (checks: A11yCheck[], outcome: string) =>
  checks
    .filter((c) => c.value.outcome === outcome)
    .map((c) => c.id)
    .sort();

describe('the accessibility category of a rendered page', () => {
  for (const fixture of a11yFixtures) {
    it(`${fixture.kind}: ${fixture.what}; fixed, it passes`, { timeout: 150_000 }, async () => {
      const [bad, good] = await Promise.all([
        analyzer.analyze(parseTargetUrl(`${server.origin}/a11y/${fixture.kind}/bad`), options, true),
        analyzer.analyze(parseTargetUrl(`${server.origin}/a11y/${fixture.kind}/good`), options, true),
      ]);
      for (const r of [bad, good]) {
        expect(r.rendering.status, r.rendering.reason).toBe('rendered');
        expect(r.rendering.accessibility?.error).toBeUndefined();
        expect(a11y(r)).toHaveLength(57);
      }
      const badChecks = a11y(bad);
      expect(ids(badChecks, 'failed')).toEqual([...fixture.fails].sort());
      expect(ids(badChecks, 'needs_review')).toEqual([...(fixture.reviews ?? [])].sort());
      for (const check of badChecks.filter((c) => c.value.outcome === 'failed')) {
        expect(check.passed).toBe(false);
        expect(check.rendered).toBe(true);
        expect(['minor', 'moderate', 'serious', 'critical']).toContain(check.value.impact);
        expect(check.value.nodes).toBeGreaterThan(0);
        expect(check.details.length).toBeGreaterThan(0);
        expect(check.details.length).toBeLessThanOrEqual(5);
        for (const node of check.details) {
          expect(node).toEqual({ selector: expect.any(String), snippet: expect.any(String), why: expect.any(String) });
          expect((node as { selector: string }).selector.length).toBeGreaterThan(0);
        }
      }
      // Needs review: listed with its nodes, not failed.
      for (const check of badChecks.filter((c) => c.value.outcome === 'needs_review')) {
        expect(check.passed).toBe(true);
        expect(check.details.length).toBeGreaterThan(0);
      }
      expect(ids(a11y(good), 'failed')).toEqual([]);
      expect(ids(a11y(good), 'needs_review')).toEqual([]);
      expect(good.rendering.accessibility?.score).toBe(100);
      if (fixture.fails.length) expect(bad.rendering.accessibility!.score!).toBeLessThan(100);
      // Rules with nothing to test on the page are not applicable (passed, not scored).
      expect(ids(a11y(good), 'not_applicable')).toContain('a11y_video_caption');
    });
  }

  it('runs under a strict CSP, beside a page that defines its own axe', { timeout: 120_000 }, async () => {
    for (const path of ['/a11y/csp', '/a11y/own-axe']) {
      const result = await analyzer.analyze(parseTargetUrl(`${server.origin}${path}`), options, true);
      const failed = ids(a11y(result), 'failed');
      expect(failed, path).toContain('a11y_image_alt');
      expect(failed, path).toContain('a11y_html_has_lang');
    }
  });

  it('leaves the report’s score to phpRank’s sections', { timeout: 120_000 }, async () => {
    const result = await analyzer.analyze(parseTargetUrl(`${server.origin}/a11y/contrast/bad`), options, true);
    const withoutA11y = Object.entries(result.results)
      .filter(([category]) => category !== 'accessibility')
      .flatMap(([, list]) => list);
    expect(reportScoreOf(result, options.weights).score).toBe(scoreResults(withoutA11y, options.weights).score);
    expect(Object.keys(result.results).sort()).toEqual([
      'accessibility',
      'miscellaneous',
      'performance',
      'security',
      'seo',
    ]);
  });

  it('is absent when the page is not rendered', { timeout: 120_000 }, async () => {
    const result = await analyzer.analyze(parseTargetUrl(`${server.origin}/a11y/contrast/bad`), options, false);
    expect(result.rendering.status).toBe('skipped');
    expect(result.results.accessibility).toBeUndefined();
  });
});
