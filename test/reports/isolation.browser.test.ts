/**
 * One tenant, one name server or one page can never starve the others (issue 26), tried
 * through the running service as the attacker would: an API key holder whose own zone's name
 * server never answers, and one who sends more rendered reports than its share.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { request, type JsonResponse } from '../helpers/http.ts';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.ts';
import { startTestNameServer, type TestNameServer } from '../helpers/dns-server.ts';
import { percentile, pollLag } from '../helpers/lag.ts';
import { chromiumPath } from '../analyzer/render/fixtures.ts';

const chromiumHere = await readFile(chromiumPath).then(
  () => true,
  () => false,
);

let ns: TestNameServer;
let site: FixtureSite;

beforeAll(async () => {
  ns = await startTestNameServer({ stallZone: 'stall.test' });
  site = await startFixtureSite();
});
afterAll(async () => {
  await site?.close();
  await ns?.close();
});

const report = (server: TestServer, key: string, form: Record<string, string>) =>
  request(`${server.url}/api/v1/reports`, { method: 'POST', key, form });

/** Resolves when `cond` holds (checked every 20 ms), or fails after `ms`. */
async function until(cond: () => boolean, ms: number): Promise<void> {
  const end = performance.now() + ms;
  while (!cond()) {
    if (performance.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a name server that never answers', () => {
  let services: TestServices;
  let server: TestServer;

  beforeAll(async () => {
    services = await openTestServices({
      env: {
        ANALYZER_ALLOW_PRIVATE: 'true',
        ANALYZER_DNS_SERVERS: ns.address,
        // The analysis deadline ends the stalled lookups before the resolver would give up.
        ANALYZER_DNS_TIMEOUT_MS: '3000',
        ANALYZER_TIMEOUT_MS: '4000',
        // Room for all 40 at once, so all 40 lookups are in flight together.
        ANALYZER_CONCURRENCY: '48',
        ANALYZER_KEY_CONCURRENCY: '40',
        ANALYZER_QUEUE: '64',
      },
    });
    server = await startTestServer(services);
  });
  afterAll(async () => {
    await server?.close();
    await services?.cleanup();
  });

  it('40 analyses of its names stall nobody else, and each fails by its deadline', { timeout: 60_000 }, async () => {
    const attacker = await createKeyedUser(services, 'attacker');
    const other = await createKeyedUser(services, 'other');
    // The other user's normal time, measured first (the first analysis also starts the engine).
    await report(server, other.key, { url: `${site.url}/good` });
    const normalStarted = performance.now();
    expect((await report(server, other.key, { url: `${site.url}/good` })).status).toBe(201);
    const normalMs = performance.now() - normalStarted;
    const queriesBefore = ns.stalledQueries;
    let pending = 40;
    const stalled = Array.from({ length: 40 }, (_, i) =>
      report(server, attacker.key, { url: `http://n${i}.stall.test/` }).finally(() => pending--),
    );
    const allStalled = Promise.allSettled(stalled);
    // /healthz polled for as long as the 40 are stalled.
    const healthz = pollLag(`${server.url}/healthz`, allStalled);
    // Every one of them is waiting on the silent name server.
    await until(() => ns.stalledQueries - queriesBefore >= 40, 10_000);

    // Meanwhile: the thread pool is free (zlib and file reads), another user's report of a
    // loopback page completes, and /healthz answers.
    const started = performance.now();
    const theirs = report(server, other.key, { url: `${site.url}/good` });
    await promisify(zlib.gzip)(Buffer.alloc(1 << 20, 7));
    await readFile(new URL(import.meta.url));
    const res = await theirs;
    const tookMs = performance.now() - started;
    const pendingWhenDone = pending;
    expect(res.status).toBe(201);
    expect(pendingWhenDone).toBeGreaterThan(0); // it did not wait for the stalled ones
    const { lags, failures } = await healthz;
    console.log(
      `other user's report: ${normalMs.toFixed(0)} ms alone, ${tookMs.toFixed(0)} ms during 40 stalled lookups; /healthz p50 ${percentile(lags, 50).toFixed(1)} ms, max ${Math.max(...lags).toFixed(1)} ms`,
    );
    expect(failures).toBe(0);
    expect(percentile(lags, 50)).toBeLessThan(100);

    const answers: JsonResponse[] = await Promise.all(stalled);
    for (const a of answers) {
      expect(a.status).toBe(422);
      expect(a.body).toMatchObject({ code: 'ERR_ANALYSIS_FAILED', reason: 'timeout' });
    }
  });
});

describe.runIf(chromiumHere)('one key sending more rendered reports than its share', () => {
  let services: TestServices;
  let server: TestServer;
  let hostile: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    services = await openTestServices({
      env: {
        ANALYZER_ALLOW_PRIVATE: 'true',
        ANALYZER_RENDER: 'auto',
        ANALYZER_CHROMIUM_PATH: chromiumPath,
        ANALYZER_DNS_SERVERS: ns.address,
        ANALYZER_RENDER_TIMEOUT_MS: '8000',
        // The share, not the wait, decides here: the waiting six drain two at a time, each render
        // taking its full 8 s, past the default 15 s wait (test/analyzer/pool.unit.test.ts tests that bound).
        ANALYZER_KEY_WAIT_MS: '120000',
      },
    });
    server = await startTestServer(services);
    // A page whose script asks for 40 names in the silent zone.
    const page = `<!DOCTYPE html><html lang="en"><head><title>Names</title></head><body><h1>Names</h1><script>
      for (let i = 0; i < 40; i++) fetch('http://r' + i + '.stall.test/x').catch(() => {});
    </script></body></html>`;
    const srv = http.createServer((req, res) => {
      if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html' }).end(page);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    hostile = {
      url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/`,
      close: () => new Promise<void>((resolve) => srv.close(() => resolve())),
    };
  });
  afterAll(async () => {
    await hostile?.close();
    await server?.close();
    await services?.cleanup();
  });

  it('gets its own limit named in its 503s, and another key is never refused', { timeout: 180_000 }, async () => {
    const a = await createKeyedUser(services, 'flooder');
    const b = await createKeyedUser(services, 'bystander');
    const flood = Array.from({ length: 45 }, () => report(server, a.key, { url: hostile.url, render: '1' }));
    await new Promise((r) => setTimeout(r, 200));
    const theirs = await report(server, b.key, { url: `${site.url}/good`, render: '1' });
    expect(theirs.status).toBe(201);
    expect(theirs.body.data.results).toBeDefined();

    const answers = await Promise.all(flood);
    const refused = answers.filter((r) => r.status === 503);
    const accepted = answers.filter((r) => r.status === 201);
    console.log(`45 rendered reports from one key: ${accepted.length} accepted, ${refused.length} refused`);
    // Its share: ANALYZER_KEY_CONCURRENCY (2) running + ANALYZER_KEY_QUEUE (6) waiting.
    expect(accepted.length).toBe(8);
    for (const r of refused) {
      expect(r.body.code).toBe('ERR_ANALYZER_KEY_BUSY');
      expect(r.body.message).toMatch(/At most 2 analyses may run and 6 wait/);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });
});
