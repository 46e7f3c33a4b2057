/**
 * The SSRF suite on the rendering path: every connection Chromium makes goes through the guarded
 * proxy. A "forbidden" server listens on 127.0.0.2; the policy allows only 127.0.0.1, and the
 * names resolve through a fixed table. Subresources, redirects, fetch/XHR, websockets,
 * prefetch and navigations towards forbidden addresses must never reach the forbidden server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResult } from '../../../src/analyzer/checks/types.ts';
import { AnalyzeError } from '../../../src/analyzer/errors.ts';
import { defaultAnalyzerOptions } from '../../../src/analyzer/options.ts';
import type { LookupFunction } from '../../../src/analyzer/resolver.ts';
import { RenderingAnalyzer, type RenderedAnalysis } from '../../../src/analyzer/render/analyzer.ts';
import { renderPage } from '../../../src/analyzer/render/render.ts';
import { startFixtureServer, type FixtureServer } from '../fixtures/server.ts';
import { chromiumPath } from './fixtures.ts';
import { parseTargetUrl } from '../../../src/analyzer/address-guard.ts';

let site: FixtureServer;
let forbidden: Server;
let forbiddenPort = 0;
const forbiddenHits: string[] = [];
let analyzer: RenderingAnalyzer;
const queries: string[] = [];

function tableLookup(table: Record<string, string[]>): LookupFunction {
  const answered = new Map<string, number>();
  return async (hostname) => {
    queries.push(hostname);
    const list = table[hostname];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    // rebind.test answers 127.0.0.1 first, then the forbidden address.
    const n = answered.get(hostname) ?? 0;
    answered.set(hostname, n + 1);
    const address = list[Math.min(n, list.length - 1)];
    return [{ address, family: 4 }];
  };
}

const options = () =>
  defaultAnalyzerOptions({
    lookup: tableLookup({
      'public.test': ['127.0.0.1'],
      'evil.test': ['127.0.0.2'],
      'rebind.test': ['127.0.0.1', '127.0.0.2'],
    }),
    isAllowedAddress: (ip) => ip === '127.0.0.1',
  });

const page = (body: string) => ({
  headers: { 'content-type': 'text/html' },
  body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>t</title></head><body><h1>Page</h1>${body}</body></html>`,
});

beforeAll(async () => {
  forbidden = createServer((req, res) => {
    forbiddenHits.push(`${req.method} ${req.url}`);
    res.end('secret');
  });
  forbidden.on('upgrade', (req, socket) => {
    forbiddenHits.push(`UPGRADE ${req.url}`);
    socket.destroy();
  });
  forbidden.on('connect', (req, socket) => {
    forbiddenHits.push(`CONNECT ${req.url}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => forbidden.listen(0, '127.0.0.2', resolve));
  forbiddenPort = (forbidden.address() as AddressInfo).port;
  const f = forbiddenPort;
  const routes: Parameters<typeof startFixtureServer>[0] = {};
  site = await startFixtureServer(routes);
  Object.assign(routes, {
    '/subresources': page(`
      <img src="http://127.0.0.2:${f}/img.png" alt="a">
      <img src="http://evil.test:${f}/img2.png" alt="b">
      <img src="http://2130706434:${f}/decimal.png" alt="c">
      <script src="http://evil.test:${f}/s.js"></script>
      <link rel="stylesheet" href="http://localhost:${f}/s.css">
      <iframe src="http://evil.test:${f}/frame"></iframe>
      <link rel="prefetch" href="http://evil.test:${f}/prefetch">`),
    '/redirects': page(`<img src="/to-evil.png" alt="r"><script src="/to-decimal.js"></script>`),
    '/to-evil.png': { status: 302, headers: { location: `http://evil.test:${f}/after-redirect.png` } },
    '/to-decimal.js': { status: 307, headers: { location: `http://2130706434:${f}/after-redirect.js` } },
    '/to-evil': { status: 302, headers: { location: `http://evil.test:${f}/document` } },
    '/scripts': page(`<script>
      fetch('http://127.0.0.2:${f}/fetch').catch(() => {});
      fetch('http://evil.test:${f}/fetch2', { mode: 'no-cors' }).catch(() => {});
      const x = new XMLHttpRequest(); x.open('GET', 'http://evil.test:${f}/xhr'); x.send();
      try { new WebSocket('ws://127.0.0.2:${f}/ws'); } catch (e) {}
      try { new WebSocket('ws://evil.test:${f}/ws2'); } catch (e) {}
      navigator.sendBeacon('http://evil.test:${f}/beacon', 'x');
      new EventSource('http://evil.test:${f}/events');
    </script>`),
    '/navigates': page(
      `<script>setTimeout(() => { location.href = 'http://evil.test:${f}/navigated'; }, 50);</script>`,
    ),
    '/service-worker': page(`<script>
      try {
        navigator.serviceWorker.register('/sw.js').then(() => { document.title = 'sw registered'; }, () => { document.title = 'sw refused'; });
      } catch (e) { document.title = 'sw unavailable'; }
    </script>`),
    '/sw.js': { headers: { 'content-type': 'text/javascript' }, body: `self.addEventListener('fetch', () => {});` },
    '/rebind': page(`<img src="/pixel.png" alt="p"><script src="http://rebind.test:${site.port}/r.js"></script>`),
    '/r.js': { headers: { 'content-type': 'text/javascript' }, body: `fetch('/again').catch(() => {});` },
  });
  analyzer = new RenderingAnalyzer({
    mode: 'always',
    chromiumPath,
    contexts: 2,
    timeoutMs: 10_000,
    maxHeapMb: 256,
    maxBytes: 50e6,
    settleMs: 1000,
  });
});

afterAll(async () => {
  await analyzer?.close();
  await site?.close();
  await new Promise((resolve) => forbidden?.close(resolve));
});

function check(result: RenderedAnalysis, id: string): CheckResult {
  return Object.values(result.results)
    .flat()
    .find((c) => c.id === id)!;
}

const refused = (result: RenderedAnalysis) => (check(result, 'http_requests').value as { refused: number }).refused;

describe('the rendering path refuses forbidden addresses', () => {
  it('subresources (literal, decimal, names, localhost, frames, prefetch)', { timeout: 60_000 }, async () => {
    const result = await analyzer.analyze(parseTargetUrl(`http://public.test:${site.port}/subresources`), options());
    expect(result.rendering.status).toBe('rendered');
    expect(refused(result)).toBeGreaterThanOrEqual(5);
    expect(check(result, 'http_requests').details.join('\n')).toMatch(/127\.0\.0\.2 is a loopback address/);
    expect(forbiddenHits).toEqual([]);
  });

  it('redirects of subresources', { timeout: 60_000 }, async () => {
    const result = await analyzer.analyze(parseTargetUrl(`http://public.test:${site.port}/redirects`), options());
    expect(refused(result)).toBeGreaterThanOrEqual(2);
    expect(site.hits).toContain('/to-evil.png');
    expect(forbiddenHits).toEqual([]);
  });

  it('fetch, XHR, websockets, beacons and event streams', { timeout: 60_000 }, async () => {
    const result = await analyzer.analyze(parseTargetUrl(`http://public.test:${site.port}/scripts`), options());
    expect(refused(result)).toBeGreaterThanOrEqual(5);
    const details = check(result, 'http_requests').details.join('\n');
    // WebSockets are tunnelled with CONNECT host:port, and refused there.
    expect(details).toContain(`refused 127.0.0.2:${forbiddenPort}:`);
    expect(details).toContain(`refused evil.test:${forbiddenPort}:`);
    expect(details).toContain(`refused http://evil.test:${forbiddenPort}/xhr:`);
    expect(forbiddenHits).toEqual([]);
  });

  it('a document redirect and a script navigation', { timeout: 60_000 }, async () => {
    const limits = { timeoutMs: 10_000, maxBytes: 50e6, settleMs: 500 };
    const err = await renderPage(analyzer.pool, `http://public.test:${site.port}/to-evil`, options(), limits).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AnalyzeError);
    expect((err as AnalyzeError).reason).toBe('forbidden_address');
    await analyzer.analyze(parseTargetUrl(`http://public.test:${site.port}/navigates`), options());
    expect(forbiddenHits).toEqual([]);
  });

  it('service workers are blocked', { timeout: 60_000 }, async () => {
    const result = await analyzer.analyze(parseTargetUrl(`http://public.test:${site.port}/service-worker`), options());
    expect(check(result, 'title').value).toMatch(/^sw (refused|unavailable)$/);
    expect(site.hits).not.toContain('/sw.js');
  });

  it('pins each host to the address checked first (DNS rebinding)', { timeout: 60_000 }, async () => {
    queries.length = 0;
    const limits = { timeoutMs: 10_000, maxBytes: 50e6, settleMs: 500 };
    const before = site.hits.length;
    const rendered = await renderPage(analyzer.pool, `http://rebind.test:${site.port}/rebind`, options(), limits);
    expect(queries.filter((q) => q === 'rebind.test')).toEqual(['rebind.test']);
    expect(site.hits.slice(before)).toEqual(expect.arrayContaining(['/rebind', '/pixel.png', '/r.js', '/again']));
    expect(rendered.blocked).toEqual([]);
    expect(forbiddenHits).toEqual([]);
  });
});
