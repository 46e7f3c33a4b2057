/**
 * The rendering analyzer against local fixture pages in real Chromium: a client-rendered page
 * graded on what it renders, a slow shifting page failing the lab checks, a lean page passing.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResult } from '../../../src/analyzer/checks/types.ts';
import { defaultAnalyzerOptions } from '../../../src/analyzer/options.ts';
import { RenderingAnalyzer, type RenderedAnalysis } from '../../../src/analyzer/render/analyzer.ts';
import { logNormalScore, labCurves } from '../../../src/analyzer/render/lab.ts';
import { startFixtureServer, type FixtureServer } from '../fixtures/server.ts';
import { reportScoreOf } from '../../helpers/report-score.ts';
import { chromiumPath, renderSite } from './fixtures.ts';
import { parseTargetUrl } from '../../../src/analyzer/address-guard.ts';

let server: FixtureServer;
let analyzer: RenderingAnalyzer;
const options = defaultAnalyzerOptions({ isAllowedAddress: (ip) => ip === '127.0.0.1' });

beforeAll(async () => {
  expect(existsSync(chromiumPath), `Chromium at ${chromiumPath}`).toBe(true);
  const routes: Parameters<typeof startFixtureServer>[0] = {};
  server = await startFixtureServer(routes);
  Object.assign(routes, await renderSite(server.origin));
  analyzer = new RenderingAnalyzer({
    mode: 'auto',
    chromiumPath,
    contexts: 2,
    timeoutMs: 15_000,
    maxHeapMb: 256,
    maxBytes: 50e6,
    settleMs: 1500,
  });
});

afterAll(async () => {
  await analyzer?.close();
  await server?.close();
});

function check(result: RenderedAnalysis, id: string): CheckResult & { rendered?: boolean } {
  const found = Object.values(result.results)
    .flat()
    .find((c) => c.id === id);
  expect(found, `check ${id}`).toBeDefined();
  return found!;
}

describe('a client-rendered page', () => {
  it('is rendered automatically and graded on its rendered content', { timeout: 60_000 }, async () => {
    const raw = await analyzer.analyze(parseTargetUrl(`${server.origin}/csr`), options, false);
    expect(raw.rendering.status).toBe('skipped');
    expect(check(raw, 'title').passed).toBe(false);
    expect(check(raw, 'headings').passed).toBe(false);
    expect(check(raw, 'in_page_links').value).toBe(0);

    const result = await analyzer.analyze(parseTargetUrl(`${server.origin}/csr`), options); // auto: a shell
    expect(result.rendering.status).toBe('rendered');
    const title = check(result, 'title');
    expect(title).toMatchObject({ passed: true, value: 'Coffee Brewing Guide: Methods and Tips', rendered: true });
    expect(check(result, 'headings')).toMatchObject({
      passed: true,
      value: ['Brewing coffee at home'],
      rendered: true,
    });
    expect(check(result, 'in_page_links')).toMatchObject({ value: 3, rendered: true });
    expect(check(result, 'meta_description').passed).toBe(true);
    expect(Number(check(result, 'content_length').value)).toBeGreaterThan(500);
    // Header checks stay on the raw response, unmarked.
    expect(check(result, 'cache_headers').rendered).toBeUndefined();
    expect(reportScoreOf(result, options.weights).score).toBeGreaterThan(reportScoreOf(raw, options.weights).score);
    // A raw analysis' categories plus accessibility, lab checks under performance.
    expect(Object.keys(raw.results).sort()).toEqual(['miscellaneous', 'performance', 'security', 'seo']);
    expect(Object.keys(result.results).sort()).toEqual([
      'accessibility',
      'miscellaneous',
      'performance',
      'security',
      'seo',
    ]);
    expect(result.results.performance.map((c) => c.id)).toContain('largest_contentful_paint');
  });

  it('a server-rendered page is not rendered in auto mode unless asked', { timeout: 60_000 }, async () => {
    const result = await analyzer.analyze(parseTargetUrl(`${server.origin}/lean`), options);
    expect(result.rendering.status).toBe('skipped');
    expect(
      Object.values(result.results)
        .flat()
        .some((c) => 'rendered' in c),
    ).toBe(false);
  });
});

describe('lab checks', () => {
  it('a slow, shifting page fails layout shift, paint and blocking time', { timeout: 60_000 }, async () => {
    const result = await analyzer.analyze(parseTargetUrl(`${server.origin}/slow`), options, true);
    expect(result.rendering.status).toBe('rendered');
    expect(check(result, 'cumulative_layout_shift').passed).toBe(false);
    expect(Number(check(result, 'cumulative_layout_shift').value)).toBeGreaterThan(0.1);
    expect(check(result, 'first_contentful_paint').passed).toBe(false);
    expect(check(result, 'largest_contentful_paint').passed).toBe(false);
    expect(check(result, 'total_blocking_time').passed).toBe(false);
    expect(check(result, 'render_blocking_resources')).toMatchObject({ passed: false, value: 1 });
    expect(check(result, 'lab_performance_score').passed).toBe(false);
  });

  it('a lean page passes them', { timeout: 60_000 }, async () => {
    const result = await analyzer.analyze(parseTargetUrl(`${server.origin}/lean`), options, true);
    for (const id of [
      'cumulative_layout_shift',
      'first_contentful_paint',
      'largest_contentful_paint',
      'total_blocking_time',
      'render_blocking_resources',
      'console_errors',
      'lab_performance_score',
    ]) {
      expect(check(result, id), id).toMatchObject({ passed: true, rendered: true });
    }
    expect(result.rendering.lab!.score).toBeGreaterThanOrEqual(90);
  });

  it('finds oversized and offscreen images, console errors', { timeout: 60_000 }, async () => {
    const images = await analyzer.analyze(parseTargetUrl(`${server.origin}/images`), options, true);
    expect(check(images, 'oversized_images')).toMatchObject({ passed: false, value: 1 });
    expect(check(images, 'offscreen_images')).toMatchObject({ passed: false, value: 3 });
    const requests = check(images, 'http_requests').value as {
      byType: Record<string, { count: number; bytes: number }>;
    };
    expect(requests.byType['image'].count).toBe(4);
    expect(requests.byType['image'].bytes).toBeGreaterThan(100_000);
    const poor = await analyzer.analyze(parseTargetUrl(`${server.origin}/csr-poor`), options, true);
    // The hydration failure it logs, its uncaught error and the missing /favicon.ico.
    expect(check(poor, 'console_errors')).toMatchObject({ passed: false, value: 3 });
    expect(check(poor, 'total_blocking_time').passed).toBe(false);
  });
});

describe('logNormalScore (Lighthouse curve)', () => {
  it('is 0.9 at p10 and 0.5 at the median', () => {
    expect(logNormalScore(labCurves.lcp, 1200)).toBe(0.9);
    expect(logNormalScore(labCurves.lcp, 2400)).toBe(0.5);
    expect(logNormalScore(labCurves.cls, 0)).toBe(1);
    expect(logNormalScore(labCurves.tbt, 10_000)).toBeLessThan(0.05);
  });
});
