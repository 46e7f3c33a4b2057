/**
 * One API key's site audits and webhooks never freeze the service or starve another key, tried
 * through the running service as that key's holder would: a robots.txt of 47,000 wildcard rules
 * beside a 150-URL sitemap, 25 sitemaps that send a byte a second, two 60-page audits of pages
 * that take 12 s each, 20 webhooks that never answer, and every per-account cap.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.ts';
import { request } from '../helpers/http.ts';
import { percentile, pollLag } from '../helpers/lag.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { driveClock } from '../helpers/driven-clock.ts';
import { startDeadReceiver, startHostileSite, type DeadReceiver, type HostileSite } from './hostile-site.ts';

let services: TestServices;
let server: TestServer;
let fixture: FixtureSite;
let a: string;
let b: string;
const sites: HostileSite[] = [];

async function site(options: Parameters<typeof startHostileSite>[0]): Promise<HostileSite> {
  const started = await startHostileSite(options);
  sites.push(started);
  return started;
}

// The queue's clock keeps real time; the failing webhook's test skips its retries' backoff.
const driven = driveClock();

beforeAll(async () => {
  services = await openTestServices({
    queue: true,
    queueClock: driven.clock,
    env: {
      API_RATE_LIMIT: '100000',
      ANALYZER_ALLOW_PRIVATE: 'true',
      AUDIT_HOST_DELAY_MS: '0',
      AUDIT_DISCOVERY_TIMEOUT_MS: '10000',
      QUEUE_MONITOR_SECONDS: '2',
      WEBHOOK_DISABLE_AFTER: '2',
    },
  });
  server = await startTestServer(services);
  fixture = await startFixtureSite();
  ({ key: a } = await createKeyedUser(services, 'attacker'));
  ({ key: b } = await createKeyedUser(services, 'bystander'));
}, 120_000);

afterAll(async () => {
  await server?.close();
  await services?.cleanup();
  await driven.stop();
  await fixture?.close();
  for (const s of sites) await s.close();
});

async function api(key: string, method: string, path: string, json?: unknown) {
  const res = await request(`${server.url}${path}`, { method, key, json });
  return { status: res.status, body: res.body as Record<string, any>, headers: res.headers };
}

/** Polls `fn` until it gives a value; with `skipMs`, the queue's clock skips that much a poll. */
async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number, skipMs = 0): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    if (skipMs) await driven.skip(skipMs);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function audit(key: string, body: Record<string, unknown>): Promise<number> {
  const created = await api(key, 'POST', '/api/v1/audits', body);
  expect(created.status).toBe(202);
  return created.body.data.id as number;
}

const read = async (key: string, id: number) => (await api(key, 'GET', `/api/v1/audits/${id}`)).body.data;

async function cancel(key: string, id: number): Promise<void> {
  expect((await api(key, 'DELETE', `/api/v1/audits/${id}`)).status).toBe(200);
}

describe("one key's audits", () => {
  it('a 1.9 MB robots.txt and a 150-URL sitemap never hold the event loop', { timeout: 120_000 }, async () => {
    const hostile = await site({ robotsBytes: 1_900_000, sitemapUrls: 150 });
    const report = () =>
      request(`${server.url}/api/v1/reports`, { method: 'POST', key: b, form: { url: `${fixture.url}/good` } });
    // B's report alone first: the figure to compare with (and the analyzer's engine started).
    let before = performance.now();
    expect((await report()).status).toBe(201);
    const aloneMs = performance.now() - before;
    const started = performance.now();
    const id = await audit(a, { url: `${hostile.url}/`, max_pages: 150 });
    const discovered = until(
      "A's discovery",
      async () => {
        const data = await read(a, id);
        return data.status !== 'queued' ? data : undefined;
      },
      60_000,
    );
    const lag = pollLag(`${server.url}/healthz`, discovered);
    // B's plain report while A's robots.txt and sitemap are read and parsed.
    await new Promise((r) => setTimeout(r, 300));
    before = performance.now();
    const theirs = await report();
    const reportMs = performance.now() - before;
    const { lags, failures } = await lag;
    const data = await discovered;
    console.log(
      `discovery ${(performance.now() - started).toFixed(0)} ms; /healthz p50 ${percentile(lags, 50).toFixed(1)} ms, ` +
        `max ${Math.max(...lags).toFixed(1)} ms over ${lags.length} polls; B's report ${reportMs.toFixed(0)} ms ` +
        `(alone ${aloneMs.toFixed(0)} ms)`,
    );
    expect(theirs.status).toBe(201);
    expect(failures).toBe(0);
    // The figure is 250 ms; parsing on the event loop held it for 46-62 s.
    expect(Math.max(...lags)).toBeLessThan(2_000);
    // robots.txt was read (its first 500 KiB) and obeyed: the sitemap's /blocked/ URLs are left out.
    const pages = await until(
      'the run under way',
      async () => {
        const now = await read(a, id);
        return now.pages.length > 0 ? (now.pages as Array<{ url: string }>) : undefined;
      },
      30_000,
    );
    expect(data.progress.total).toBeGreaterThan(100);
    expect(pages.some((p) => p.url.includes('/blocked/'))).toBe(false);
    expect(hostile.hits.get('/blocked/9')).toBeUndefined();
    await cancel(a, id);
  });

  it(
    "B's 3-page audit completes while A's discovery trickles and A's 120 slow pages run",
    { timeout: 180_000 },
    async () => {
      const trickling = await site({ tricklingSitemaps: 25 });
      const slow = await site({ sitemapUrls: 60, pageDelayMs: 12_000 });
      const small = await site({ sitemapUrls: 2 });
      const theirs = [
        await audit(a, { url: `${trickling.url}/`, max_pages: 5 }),
        await audit(a, { url: `${slow.url}/`, max_pages: 60 }),
        await audit(a, { url: `${slow.url}/?again`, max_pages: 60 }),
      ];
      // Cancelled whatever happens: A's running audits would hold its share in the next tests.
      try {
        // A's pages hold their share of the workers before B asks.
        await until('A holding workers', async () => ((slow.hits.get('/page/0') ?? 0) > 0 ? true : undefined), 60_000);
        const started = performance.now();
        const id = await audit(b, { url: `${small.url}/`, max_pages: 3 });
        const done = await until(
          "B's audit",
          async () => {
            const data = await read(b, id);
            return data.status === 'completed' || data.status === 'failed' ? data : undefined;
          },
          60_000,
        );
        console.log(`B's 3-page audit completed in ${(performance.now() - started).toFixed(0)} ms`);
        expect(done.status).toBe('completed');
        expect(done.progress).toEqual({ done: 3, failed: 0, total: 3 });
        // A's two slow audits are far from done (running, or the second still queued behind A's
        // share of the workers): B did not wait for them.
        for (const mine of theirs.slice(1)) expect(['queued', 'running']).toContain((await read(a, mine)).status);
        // A's trickling discovery ended at its deadline and its run started with the start URL.
        expect((await read(a, theirs[0])).status).not.toBe('queued');
      } finally {
        for (const mine of theirs) await cancel(a, mine);
      }
    },
  );
});

describe("one key's webhooks", () => {
  let dead: DeadReceiver;
  let good: http.Server;
  let goodUrl: string;
  const arrived: Array<{ type: string; at: number }> = [];

  beforeAll(async () => {
    dead = await startDeadReceiver();
    good = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        arrived.push({ type: (JSON.parse(body) as { type: string }).type, at: performance.now() });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => good.listen(0, '127.0.0.1', resolve));
    goodUrl = `http://127.0.0.1:${(good.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await dead?.close();
    await new Promise((resolve) => good?.close(resolve));
  });

  it("B's delivery arrives beside 20 of A's receivers that never answer", { timeout: 120_000 }, async () => {
    for (let i = 0; i < 20; i++) {
      const hook = await api(a, 'POST', '/api/v1/webhooks', { url: `${dead.url}?${i}`, events: ['audit.completed'] });
      expect(hook.status).toBe(201);
    }
    const page = await site({});
    const mine = await audit(a, { url: `${page.url}/`, max_pages: 1 });
    await until("A's deliveries in flight", async () => (dead.requests() >= 2 ? true : undefined), 60_000);
    expect((await api(b, 'POST', '/api/v1/webhooks', { url: goodUrl, events: ['audit.completed'] })).status).toBe(201);
    const started = performance.now();
    await audit(b, { url: `${page.url}/?b`, max_pages: 1 });
    const delivered = await until(
      "B's delivery",
      async () => arrived.find((x) => x.type === 'audit.completed'),
      30_000,
    );
    console.log(
      `B's delivery ${(delivered.at - started).toFixed(0)} ms after its audit was created; ` +
        `A's receivers got ${dead.requests()} requests, at most ${dead.mostAtOnce()} at once`,
    );
    // A's deliveries take at most WEBHOOK_KEY_CONCURRENCY (2) slots, every instance together.
    expect(dead.mostAtOnce()).toBeLessThanOrEqual(2);
    expect(dead.requests()).toBeLessThan(20);
    expect((await read(a, mine)).status).toBe('completed');
  });

  it(
    'a webhook whose deliveries fail every attempt is disabled, listed so, and can be enabled',
    { timeout: 180_000 },
    async () => {
      const { key: c } = await createKeyedUser(services, 'failing-receiver');
      const failing = http.createServer((_req, res) => res.writeHead(500).end());
      await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(failing.address() as AddressInfo).port}/hook`;
        const hook = await api(c, 'POST', '/api/v1/webhooks', { url, events: ['audit.completed'] });
        const hookId = hook.body.data.id as number;
        expect(hook.body.data).toMatchObject({ enabled: true, failures_in_row: 0, disabled_reason: null });
        const page = await site({});
        await audit(c, { url: `${page.url}/`, max_pages: 1 });
        await audit(c, { url: `${page.url}/?2`, max_pages: 1 });
        // WEBHOOK_DISABLE_AFTER is 2 here: two deliveries that failed all 6 attempts, their
        // backoff (1, 2, 4, 8 and 16 s) skipped on the queue's clock.
        const disabled = await until(
          'the webhook disabled',
          async () => {
            const list = await api(c, 'GET', '/api/v1/webhooks');
            const h = list.body.data.find((x: { id: number }) => x.id === hookId);
            return h.enabled ? undefined : h;
          },
          60_000,
          2_000,
        );
        expect(disabled.failures_in_row).toBe(2);
        expect(disabled.disabled_reason).toMatch(/WEBHOOK_DISABLE_AFTER = 2/);
        // While disabled, a new event is not queued for it.
        const before = (await api(c, 'GET', `/api/v1/webhooks/${hookId}/deliveries`)).body.data.length;
        const third = await audit(c, { url: `${page.url}/?3`, max_pages: 1 });
        await until(
          'the third audit',
          async () => ((await read(c, third)).status === 'completed' ? true : undefined),
          60_000,
        );
        expect((await api(c, 'GET', `/api/v1/webhooks/${hookId}/deliveries`)).body.data.length).toBe(before);
        const enabled = await api(c, 'POST', `/api/v1/webhooks/${hookId}/enable`);
        expect(enabled.status).toBe(200);
        expect(enabled.body.data).toMatchObject({ enabled: true, failures_in_row: 0, disabled_at: null });
        // Another account cannot enable it.
        expect((await api(b, 'POST', `/api/v1/webhooks/${hookId}/enable`)).status).toBe(404);
      } finally {
        await new Promise((resolve) => failing.close(resolve));
      }
    },
  );
});

describe('per-account caps', () => {
  let capped: TestServices;
  let cappedServer: TestServer;

  beforeAll(async () => {
    capped = await openTestServices({
      queue: true,
      env: {
        ANALYZER_ALLOW_PRIVATE: 'true',
        AUDIT_HOST_DELAY_MS: '0',
        QUEUE_MONITOR_SECONDS: '2',
        AUDIT_MAX_PER_ACCOUNT: '2',
        WEBHOOK_MAX_PER_ACCOUNT: '2',
        AUDIT_DAILY_PAGES: '3',
      },
    });
    cappedServer = await startTestServer(capped);
  }, 120_000);
  afterAll(async () => {
    await cappedServer?.close();
    await capped?.cleanup();
  });

  const call = async (key: string, method: string, path: string, json?: unknown) => {
    const res = await request(`${cappedServer.url}${path}`, { method, key, json });
    return { status: res.status, body: res.body as Record<string, any>, headers: res.headers };
  };

  it('answer a 4xx naming each limit, and hold per account', { timeout: 150_000 }, async () => {
    const { key } = await createKeyedUser(capped, 'capped');
    const { key: other } = await createKeyedUser(capped, 'other');
    const target = await site({ sitemapUrls: 5 });

    const everyMinute = await call(key, 'POST', '/api/v1/audits', { url: `${target.url}/`, schedule: '* * * * *' });
    expect(everyMinute.status).toBe(422);
    expect(everyMinute.body.code).toBe('ERR_SCHEDULE_TOO_FREQUENT');
    expect(everyMinute.body.errors.schedule[0]).toMatch(/once every 3600 seconds \(AUDIT_MIN_INTERVAL\)/);
    const twiceAnHour = await call(key, 'POST', '/api/v1/audits', { url: `${target.url}/`, schedule: '0,30 * * * *' });
    expect(twiceAnHour.body.code).toBe('ERR_SCHEDULE_TOO_FREQUENT');

    const hourly = await call(key, 'POST', '/api/v1/audits', {
      url: `${target.url}/`,
      schedule: '0 * * * *',
      max_pages: 2,
    });
    expect(hourly.status).toBe(202);
    // The daily budget (3 pages): the first run takes 2, the second only 1 more. The first ends
    // before the second starts, or the two runs could take the budget in either order.
    const finished = async (id: number) =>
      until(
        `audit ${id}`,
        async () => {
          const res = await call(key, 'GET', `/api/v1/audits/${id}`);
          return ['completed', 'failed'].includes(res.body.data.status) ? res.body.data : undefined;
        },
        60_000,
      );
    expect((await finished(hourly.body.data.id)).progress.total).toBe(2);
    const second = await call(key, 'POST', '/api/v1/audits', { url: `${target.url}/`, max_pages: 5 });
    expect(second.status).toBe(202);
    const third = await call(key, 'POST', '/api/v1/audits', { url: `${target.url}/` });
    expect(third.status).toBe(422);
    expect(third.body.code).toBe('ERR_AUDIT_LIMIT');
    expect(third.body.message).toMatch(/at most 2 audits \(AUDIT_MAX_PER_ACCOUNT\)/);

    expect((await finished(second.body.data.id)).progress.total).toBe(1);
    await call(key, 'DELETE', `/api/v1/audits/${second.body.data.id}`);
    const spent = await call(key, 'POST', '/api/v1/audits', { url: `${target.url}/` });
    expect(spent.status).toBe(429);
    expect(spent.body.code).toBe('ERR_AUDIT_PAGE_BUDGET');
    expect(Number(spent.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another account's budget and caps are its own.
    expect((await call(other, 'POST', '/api/v1/audits', { url: `${target.url}/`, max_pages: 1 })).status).toBe(202);

    for (let i = 0; i < 2; i++) {
      const hook = await call(key, 'POST', '/api/v1/webhooks', {
        url: `${target.url}/hook${i}`,
        events: ['audit.completed'],
      });
      expect(hook.status).toBe(201);
    }
    const extra = await call(key, 'POST', '/api/v1/webhooks', {
      url: `${target.url}/hook9`,
      events: ['audit.completed'],
    });
    expect(extra.status).toBe(422);
    expect(extra.body.code).toBe('ERR_WEBHOOK_LIMIT');
    expect((await call(key, 'GET', '/api/v1/webhooks')).body.data).toHaveLength(2);
  });
});
