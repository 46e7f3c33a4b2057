/**
 * Pages that keep moving after their load event, in real Chromium: the render observes them
 * until they are quiet (Lighthouse's rule), so a hero whose address comes from a fetch, a
 * banner shifting the page and long tasks after load all count. Values are checked against
 * ranges the fixtures' own delays and work imply, never against wall-clock time.
 */
import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResult } from '../../../src/analyzer/checks/types.ts';
import { defaultAnalyzerOptions } from '../../../src/analyzer/options.ts';
import { RenderingAnalyzer, type RenderedAnalysis } from '../../../src/analyzer/render/analyzer.ts';
import { labChecks } from '../../../src/analyzer/render/lab.ts';
import type { RenderedPage } from '../../../src/analyzer/render/render.ts';
import { startFixtureServer, type FixtureServer } from '../fixtures/server.ts';
import { chromiumPath, head, html } from './fixtures.ts';
import { lateSite } from './late-fixtures.ts';
import { parseTargetUrl } from '../../../src/analyzer/address-guard.ts';

let server: FixtureServer;
let analyzer: RenderingAnalyzer;
const options = defaultAnalyzerOptions({ isAllowedAddress: (ip) => ip === '127.0.0.1' });
const agents: string[] = [];

beforeAll(async () => {
  expect(existsSync(chromiumPath), `Chromium at ${chromiumPath}`).toBe(true);
  const routes: Parameters<typeof startFixtureServer>[0] = {};
  server = await startFixtureServer(routes);
  Object.assign(routes, await lateSite(), {
    '/agent': (req: IncomingMessage, res: ServerResponse) => {
      agents.push(String(req.headers['user-agent']));
      res.writeHead(200, html);
      res.end(`${head('Agent')}<body><h1>Agent</h1><p>Who is asking?</p></body></html>`);
    },
  });
  analyzer = new RenderingAnalyzer({
    mode: 'always',
    chromiumPath,
    contexts: 2,
    timeoutMs: 15_000,
    maxHeapMb: 256,
    maxBytes: 50e6,
    // Every fixture here is quiet within about 2.5 s of load; a small cap keeps a regression fast.
    settleMs: 4000,
  });
});

afterAll(async () => {
  await analyzer?.close();
  await server?.close();
});

function check(result: RenderedAnalysis, id: string): CheckResult {
  const found = Object.values(result.results)
    .flat()
    .find((c) => c.id === id);
  expect(found, `check ${id}`).toBeDefined();
  return found!;
}

describe('activity after load', () => {
  it('takes the largest paint of a hero whose address comes from a fetch after load', { timeout: 60_000 }, async () => {
    const result = await analyzer.analyze(parseTargetUrl(`${server.origin}/late/hero`), options);
    expect(result.rendering.status).toBe('rendered');
    // The fetch answers after 900 ms and the image after 600 more, both started after load.
    expect(result.rendering.lab!.lcpMs).toBeGreaterThanOrEqual(1500);
    expect(result.rendering.lab!.lcpMs).toBeLessThan(8000);
    const lcp = check(result, 'largest_contentful_paint');
    expect(lcp.passed).toBe(false);
    expect(lcp.details.join(' ')).toContain('/late/hero.jpg');
  });

  it('counts a consent banner shifting the page after load', { timeout: 60_000 }, async () => {
    const banner = await analyzer.analyze(parseTargetUrl(`${server.origin}/late/banner`), options);
    // A 240 px bar pushing a viewport of content down shifts far more than the 0.1 allowed.
    expect(banner.rendering.lab!.cls).toBeGreaterThan(0.15);
    expect(banner.rendering.lab!.cls).toBeLessThan(1.5);
    expect(check(banner, 'cumulative_layout_shift').passed).toBe(false);
    // A 24 px promo bar 0.8 s after load shifts a little, and is seen.
    const promo = await analyzer.analyze(parseTargetUrl(`${server.origin}/late/promo`), options);
    expect(promo.rendering.lab!.cls).toBeGreaterThan(0.002);
    expect(promo.rendering.lab!.cls).toBeLessThan(0.1);
    expect(check(promo, 'cumulative_layout_shift').passed).toBe(true);
  });

  it('sums every long task after load into the blocking time', { timeout: 60_000 }, async () => {
    const result = await analyzer.analyze(parseTargetUrl(`${server.origin}/late/tasks`), options);
    // Tasks of at least 180, 150 and 170 ms after the first paint, 0.2-0.3 s apart: at least
    // 130 + 100 + 120 ms blocking, where the longest task alone gives 130.
    expect(result.rendering.lab!.tbtMs).toBeGreaterThanOrEqual(300);
    expect(result.rendering.lab!.tbtMs).toBeLessThan(900);
    expect(check(result, 'total_blocking_time').passed).toBe(false);
  });

  it('renders as desktop Chrome, the raw fetch keeping the analyzer its name', { timeout: 60_000 }, async () => {
    agents.length = 0;
    const result = await analyzer.analyze(parseTargetUrl(`${server.origin}/agent`), options);
    expect(result.rendering.status).toBe('rendered');
    expect(agents).toHaveLength(2);
    expect(agents[0]).toContain('WebsiteAnalyzer');
    expect(agents[1]).toMatch(/^Mozilla\/5\.0 \(X11; Linux x86_64\) .* Chrome\/\d+\.0\.0\.0 Safari\/537\.36$/);
  });
});

describe('offscreen images by Lighthouse rule', () => {
  const image = { naturalWidth: 600, naturalHeight: 400, width: 600, height: 400, offscreenShare: 1 };
  function page(images: RenderedPage['facts']['images']): RenderedPage {
    return {
      finalUrl: 'https://example.test/',
      status: 200,
      html: '',
      facts: {
        fcpMs: 100,
        lcpMs: 100,
        lcpElement: null,
        shifts: [],
        longTasks: [[900, 100]],
        dclMs: 200,
        images,
        renderBlocking: [],
        devicePixelRatio: 1,
      },
      network: images.map((i) => ({ url: i.src, type: 'image', bytes: 50_000, failed: false })),
      consoleErrors: [],
      mixedContent: [],
      blocked: [],
      timedOut: false,
      accessibility: { version: '', violations: [], incomplete: [], inapplicable: [], elapsedMs: 0 },
      elapsedMs: 0,
    };
  }
  const offscreen = (p: RenderedPage) => labChecks(p, 100).find((c) => c.id === 'offscreen_images')!;

  it('flags only images requested before interactive, without a loading attribute', () => {
    // Interactive: the end of the last long task, 1000 ms.
    const result = offscreen(
      page([
        { ...image, src: 'https://example.test/early.jpg', loadingSet: false, requestedMs: 300 },
        { ...image, src: 'https://example.test/late.jpg', loadingSet: false, requestedMs: 980 },
        { ...image, src: 'https://example.test/eager.jpg', loadingSet: true, requestedMs: 300 },
        { ...image, src: 'https://example.test/half.jpg', loadingSet: false, requestedMs: 300, offscreenShare: 0.5 },
      ]),
    );
    expect(result.value).toBe(1);
    expect(result.details).toEqual([expect.stringContaining('early.jpg')]);
  });

  it('keeps an image used twice at its least offscreen use', () => {
    const src = 'https://example.test/twice.jpg';
    const result = offscreen(
      page([
        { ...image, src, loadingSet: false, requestedMs: 300 },
        { ...image, src, loadingSet: false, requestedMs: 300, offscreenShare: 0 },
      ]),
    );
    expect(result).toMatchObject({ passed: true, value: 0 });
  });
});
