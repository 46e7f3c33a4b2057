/**
 * Hostile pages through the Koa app (issue 9): while pages built to freeze a regex or a parser
 * are analysed, in parallel, by `POST /api/v1/reports`, `/healthz` keeps answering within
 * 100 ms; a page whose checks outrun their budget fails that analysis alone (422
 * `check_budget`) while the others succeed; a host that resolves to a loopback address is a
 * 422 that names no address. The server runs in this process, so any stall of its event loop
 * shows as a late `/healthz` answer.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { request } from '../helpers/http.ts';
import { pathologicalCases } from './pathological.ts';
import { percentile, pollLag } from '../helpers/lag.ts';

/** The bound the issue sets for a `/healthz` answer while hostile pages are analysed. */
const HEALTHZ_BOUND_MS = 100;
/**
 * What the test asserts for every single poll. Tests never assert on wall-clock time on this
 * shared machine: under the whole suite (other files, check threads and Chromium on two cores)
 * a poll is sometimes descheduled for a few hundred milliseconds. A freeze of the kind the
 * issue found is not noise: the smallest of these pages held the loop 15 s before the checks
 * moved to workers, and the 4 MB page would hold it for hours. The 100 ms is asserted
 * on the median and measured on an idle machine for the note (the figures are printed).
 */
const FREEZE_BOUND_MS = 2_000;

interface HostilePage {
  html: string;
  headers?: Record<string, string>;
}

/** Serves each page at its path; anything else (robots.txt, the 404 probe) is a plain 404. */
async function startHostileSite(pages: Map<string, HostilePage>): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const page = pages.get((req.url ?? '/').split('?')[0]);
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...page.headers }).end(page.html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let services: TestServices;
let server: TestServer;
let key: string;

beforeAll(async () => {
  services = await openTestServices({
    env: {
      ANALYZER_ALLOW_PRIVATE: 'true',
      // Two check threads on this two-core machine; the rest of the analyses queue.
      ANALYZER_CONCURRENCY: '2',
      ANALYZER_QUEUE: '64',
      // One key sends every hostile page here: its share is the whole analyzer.
      ANALYZER_KEY_CONCURRENCY: '2',
      ANALYZER_KEY_QUEUE: '64',
      // Every queued page waits its turn here (two at a time, up to 3 s each), past the default
      // 15 s bound on a wait for a slot: the measure is /healthz beside them, not the queue.
      ANALYZER_KEY_WAIT_MS: '240000',
      ANALYZER_CHECK_BUDGET_MS: '3000',
      ANALYZER_TIMEOUT_MS: '60000',
    },
  });
  server = await startTestServer(services);
  key = (await createKeyedUser(services, 'hostile')).key;
});
afterAll(async () => {
  await server?.close();
  await services?.cleanup();
});

/**
 * Creates a report with a plain fetch: the shared `request` helper also validates each answer
 * against the OpenAPI document, work that would run on the server's event loop (this process)
 * and be counted as the server's lag.
 */
async function createReport(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${server.url}/api/v1/reports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('hostile pages through the app', () => {
  it(
    'keeps /healthz answering (median within 100 ms, never frozen) while they are analysed in parallel',
    { timeout: 240_000 },
    async () => {
      const pages = new Map<string, HostilePage>([
        // The two pages, and larger ones.
        ['/comments-29', { html: '<!---->'.repeat(29) }],
        ['/comments-40', { html: '<!---->'.repeat(40) }],
        ['/letters-100k', { html: 'a'.repeat(100_000) }],
        ['/letters-4m', { html: 'a'.repeat(4_000_000) }],
      ]);
      // The generator's pathological input for every check, at 256 KiB each.
      pathologicalCases(256 * 1024).forEach((c, i) =>
        pages.set(c.path ?? `/case-${i}`, { html: c.html, headers: c.headers }),
      );
      pages.set('/warm-up', { html: '<!DOCTYPE html><html lang="en"><title>Warm</title><p>Up.</p></html>' });
      const site = await startHostileSite(pages);
      try {
        // One plain analysis first: the modules an analysis loads on first use are loaded once
        // per process, whatever the page; the hostile pages are what is measured.
        expect((await createReport(`${site.url}/warm-up`)).status).toBe(201);
        pages.delete('/warm-up');
        const analyses = Promise.all([...pages.keys()].map((path) => createReport(`${site.url}${path}`)));
        const { lags, failures } = await pollLag(`${server.url}/healthz`, analyses);
        const answers = await analyses;
        const max = Math.max(...lags);
        console.log(
          `/healthz during ${pages.size} hostile analyses: ${lags.length} polls, p50 ${percentile(lags, 50).toFixed(1)} ms, p99 ${percentile(lags, 99).toFixed(1)} ms, max ${max.toFixed(1)} ms`,
        );
        expect(failures).toBe(0);
        expect(lags.length).toBeGreaterThan(10);
        expect(percentile(lags, 50)).toBeLessThan(HEALTHZ_BOUND_MS);
        expect(max).toBeLessThan(FREEZE_BOUND_MS);
        // Every analysis ends cleanly: a report, or a 422 naming why (the check budget for
        // pages whose parsing alone outruns it, headers the fetcher refuses); never a 500.
        for (const res of answers) {
          expect([201, 422]).toContain(res.status);
          if (res.status === 422) {
            expect(res.body.code).toBe('ERR_ANALYSIS_FAILED');
            expect(res.body.reason).toEqual(expect.any(String));
          }
        }
        const byPath = new Map([...pages.keys()].map((path, i) => [path, answers[i]]));
        expect(byPath.get('/comments-29')?.status).toBe(201);
        expect(byPath.get('/comments-40')?.status).toBe(201);
        expect(byPath.get('/letters-100k')?.status).toBe(201);
      } finally {
        await site.close();
      }
    },
  );

  it('fails the analysis past its check budget alone; the ones beside it succeed', { timeout: 120_000 }, async () => {
    // 4 MB of nested, attribute-heavy links under 2,000 open elements: parsing and selecting
    // alone take several times the 3 s budget.
    const row = '<div style="x"><a href="https://x.test/a" target="_blank"><img src="a.png">w</a></div>';
    const heavy = `<!DOCTYPE html><html><body>${'<div>'.repeat(2000)}${row.repeat(4_000_000 / row.length)}</body></html>`;
    const good =
      '<!DOCTYPE html><html lang="en"><head><title>A fine page</title></head><body><p>Fine.</p></body></html>';
    const site = await startHostileSite(
      new Map([
        ['/heavy', { html: heavy }],
        ['/good-1', { html: good }],
        ['/good-2', { html: good }],
        ['/good-3', { html: good }],
      ]),
    );
    try {
      const [slow, ...fine] = await Promise.all(
        ['/heavy', '/good-1', '/good-2', '/good-3'].map((path) => createReport(`${site.url}${path}`)),
      );
      expect(slow.status).toBe(422);
      expect(slow.body).toMatchObject({ code: 'ERR_ANALYSIS_FAILED', reason: 'check_budget', status: 422 });
      for (const res of fine) expect(res.status).toBe(201);
    } finally {
      await site.close();
    }
  });
});

describe('a host that resolves to a loopback address, through the app', () => {
  let strict: TestServices;
  let strictServer: TestServer;
  let strictKey: string;
  beforeAll(async () => {
    strict = await openTestServices();
    strictServer = await startTestServer(strict);
    strictKey = (await createKeyedUser(strict, 'ssrf')).key;
  });
  afterAll(async () => {
    await strictServer?.close();
    await strict?.cleanup();
  });

  it('is a 422 that names no resolved address', async () => {
    const res = await request(`${strictServer.url}/api/v1/reports`, {
      method: 'POST',
      key: strictKey,
      json: { url: 'http://localhost:9/' },
    });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'ERR_ANALYSIS_FAILED', reason: 'forbidden_address', status: 422 });
    expect(res.body.message).toBe('The host localhost does not resolve to an address that can be analyzed.');
    // An address the client wrote itself is refused as well (and may be named: it is theirs).
    for (const url of ['http://127.0.0.1/', 'http://[::1]/', 'http://169.254.169.254/latest']) {
      const literal = await request(`${strictServer.url}/api/v1/reports`, {
        method: 'POST',
        key: strictKey,
        json: { url },
      });
      expect(literal.status).toBe(422);
      expect(literal.body).toMatchObject({ code: 'ERR_ANALYSIS_FAILED', reason: 'forbidden_address' });
    }
  });
});
