/**
 * A browser killed mid-run: the analyses inside it are rendered again in a new browser, none
 * fails, and later analyses use the new browser.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { defaultAnalyzerOptions } from '../../../src/analyzer/options.ts';
import { RenderingAnalyzer } from '../../../src/analyzer/render/analyzer.ts';
import { startFixtureServer, type FixtureServer } from '../fixtures/server.ts';
import { chromiumPath, renderSite } from './fixtures.ts';
import { parseTargetUrl } from '../../../src/analyzer/address-guard.ts';

let server: FixtureServer;
let analyzer: RenderingAnalyzer;
const options = defaultAnalyzerOptions({ isAllowedAddress: (ip) => ip === '127.0.0.1' });

beforeAll(async () => {
  const routes: Parameters<typeof startFixtureServer>[0] = {};
  server = await startFixtureServer(routes);
  Object.assign(routes, await renderSite(server.origin));
  analyzer = new RenderingAnalyzer({
    mode: 'always',
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

/** The pid of the running browser process, from Chromium itself. */
async function browserPid(): Promise<number> {
  const browser = await analyzer.pool.browser();
  const session = await browser.newBrowserCDPSession();
  const info = (await session.send('SystemInfo.getProcessInfo')) as {
    processInfo: Array<{ type: string; id: number }>;
  };
  await session.detach();
  return info.processInfo.find((p) => p.type === 'browser')!.id;
}

it('a browser killed mid-run is replaced and no analysis fails', { timeout: 120_000 }, async () => {
  const first = await analyzer.analyze(parseTargetUrl(`${server.origin}/lean`), options);
  expect(first.rendering.status).toBe('rendered');
  expect(analyzer.pool.launches).toBe(1);
  const pid = await browserPid();

  // Two slow pages in flight (the slow stylesheet takes 1.5 s), then the browser dies.
  const running = [
    analyzer.analyze(parseTargetUrl(`${server.origin}/slow`), options),
    analyzer.analyze(parseTargetUrl(`${server.origin}/csr`), options),
  ];
  await new Promise((r) => setTimeout(r, 700));
  process.kill(pid, 'SIGKILL');

  const results = await Promise.all(running);
  for (const r of results) expect(r.rendering.status).toBe('rendered');
  expect(results[1].results.seo.find((c) => c.id === 'title')!.value).toBe('Coffee Brewing Guide: Methods and Tips');
  expect(analyzer.pool.launches).toBe(2);
  expect(await browserPid()).not.toBe(pid);

  const after = await analyzer.analyze(parseTargetUrl(`${server.origin}/lean`), options);
  expect(after.rendering.status).toBe('rendered');
  expect(analyzer.pool.launches).toBe(2);
  expect(analyzer.pool.active).toBe(0);
});
