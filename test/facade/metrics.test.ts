import { register as globalRegistry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createMetrics, instrumentStores } from '../../src/metrics.ts';
import type { Stores } from '../../src/stores/index.ts';
import { TEST_SECRETS, TEST_SITEKEYS } from '../helpers/test-keys.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { request } from '../helpers/http.ts';
import { browser, createTestSite, siteverify, v3Token } from '../helpers/captcha.ts';

/** The value of one sample line `name{labels} value` in a Prometheus text answer (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have: string[] = (m[2] ?? '').match(/\w+="(?:[^"\\]|\\.)*"/g) ?? [];
    if (wanted.every((w) => have.includes(w)) && have.length === wanted.length) return Number(m[3]);
  }
  return 0;
}

function labelValues(text: string, name: string, label: string): string[] {
  const out = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const m = new RegExp(`${label}="((?:[^"\\\\]|\\\\.)*)"`).exec(line);
    if (m) out.add(m[1]);
  }
  return [...out];
}

describe('GET /metrics', () => {
  let services: TestServices;
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    services = await openTestServices({ env: { API_RATE_LIMIT: '3', CAPTCHA_ENGINE: 'auto' }, store: 'memory' });
    server = await startTestServer(services);
    key = (await createKeyedUser(services, 'metrics')).key;
  });
  afterAll(async () => {
    await server?.close();
    await services?.cleanup();
  });

  const scrape = async () => {
    const res = await request(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text;
  };

  it('counts requests by method, route pattern and status, never by raw path', async () => {
    await request(`${server.url}/api/v1/reports/12345`, { key });
    await request(`${server.url}/api/v1/reports/abc`, { key });
    await request(`${server.url}/api/v1/account`, { method: 'DELETE', key });
    await request(`${server.url}/no/such/thing-42`);
    await request(`${server.url}/trpc/account.get`, { key });
    await request(`${server.url}/reports/777`);

    const text = await scrape();
    expect(sample(text, 'http_requests_total', { method: 'GET', route: '/api/v1/reports/:id', status: '404' })).toBe(2);
    expect(sample(text, 'http_requests_total', { method: 'DELETE', route: '/api/v1/account', status: '405' })).toBe(1);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: '/trpc', status: '200' })).toBe(1);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: '/reports/:id', status: '404' })).toBe(1);
    expect(
      sample(text, 'http_request_duration_seconds_count', {
        method: 'GET',
        route: '/api/v1/reports/:id',
        status: '404',
      }),
    ).toBe(2);
    expect(text).toMatch(
      /http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/api\/v1\/reports\/:id",status="404"\}/,
    );

    const routes = labelValues(text, 'http_requests_total', 'route');
    for (const raw of ['12345', 'abc', 'thing-42', 'account.get', '777']) {
      expect(routes.filter((r) => r.includes(raw))).toEqual([]);
    }
    // Default process metrics come from the instance's registry too.
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes /m);
  });

  it('counts siteverify verdicts by result, including those the facade answers', async () => {
    const site = await createTestSite(services, ['https://shop.example']);
    const token = await v3Token(server.url, {
      sitekey: site.sitekey,
      origin: 'https://shop.example',
      ip: '10.0.0.1',
      tokenKey: services.config.tokenKey,
    });
    expect(token.status).toBe(201);
    expect((await siteverify(server.url, { secret: site.secret, response: token.body.token })).body.success).toBe(true);
    expect(
      (await siteverify(server.url, { secret: site.secret, response: token.body.token })).body['error-codes'],
    ).toEqual(['timeout-or-duplicate']);
    await siteverify(server.url, { secret: TEST_SECRETS.fail, response: 'x' });
    await siteverify(server.url, { response: 'x' });
    await request(`${server.url}/api/v1/siteverify`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{',
    });

    const text = await scrape();
    expect(sample(text, 'siteverify_verdicts_total', { result: 'success' })).toBe(1);
    expect(sample(text, 'siteverify_verdicts_total', { result: 'timeout-or-duplicate' })).toBe(1);
    expect(sample(text, 'siteverify_verdicts_total', { result: 'invalid-input-response' })).toBe(1);
    expect(sample(text, 'siteverify_verdicts_total', { result: 'missing-input-secret' })).toBe(1);
    expect(sample(text, 'siteverify_verdicts_total', { result: 'bad-request' })).toBe(1);
    // Each request carries its route's label.
    expect(sample(text, 'http_requests_total', { method: 'POST', route: '/api/v1/siteverify', status: '200' })).toBe(5);
  });

  it('counts rate-limit rejections by limit', async () => {
    const other = await createKeyedUser(services, 'limited');
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await request(`${server.url}/api/v1/account`, { key: other.key })).status);
    expect(statuses.filter((s) => s === 429).length).toBe(2);
    expect(sample(await scrape(), 'rate_limit_rejections_total', { limit: 'api' })).toBe(2);
  });

  it('times analyses by outcome', async () => {
    const other = await createKeyedUser(services, 'analyst');
    const res = await request(`${server.url}/api/v1/reports`, {
      method: 'POST',
      key: other.key,
      json: { url: 'http://127.0.0.1:9/' },
    });
    expect(res.status).toBe(422);
    const text = await scrape();
    expect(sample(text, 'analyzer_duration_seconds_count', { outcome: 'forbidden_address' })).toBe(1);
    expect(labelValues(text, 'analyzer_duration_seconds_count', 'outcome')).toEqual(['forbidden_address']);
  });

  // Last in this block: it breaks the challenge and spent-token stores of these services.
  it('counts store failures by store', async () => {
    const site = await createTestSite(services, ['https://shop.example']);
    const token = await v3Token(server.url, {
      sitekey: site.sitekey,
      origin: 'https://shop.example',
      ip: '10.0.0.2',
      tokenKey: services.config.tokenKey,
    });
    expect(token.status).toBe(201);
    const down = async () => {
      throw new Error('store down');
    };
    // Assigned through the counting wrapper, onto the store it wraps.
    Object.assign(services.stores.challenges, { create: down });
    Object.assign(services.stores.spentTokens, { redeem: down });

    const challenge = await request(`${server.url}/api/v1/challenges`, {
      method: 'POST',
      headers: browser('https://shop.example', '10.0.0.3'),
      json: { sitekey: TEST_SITEKEYS.interactive },
    });
    expect(challenge.status).toBe(503);
    const verdict = await siteverify(server.url, { secret: site.secret, response: token.body.token });
    expect(verdict.body['error-codes'], JSON.stringify(verdict.body)).toEqual(['internal-error']);

    const text = await scrape();
    expect(sample(text, 'store_errors_total', { store: 'challenges' })).toBe(1);
    expect(sample(text, 'store_errors_total', { store: 'spent_tokens' })).toBe(1);
    expect(sample(text, 'siteverify_verdicts_total', { result: 'internal-error' })).toBe(1);
  });
});

describe('protection and configuration', () => {
  it('asks for the bearer token when METRICS_TOKEN is set', async () => {
    const services = await openTestServices({ env: { METRICS_TOKEN: 'scrape-me-0123456789' }, store: 'memory' });
    const server = await startTestServer(services);
    try {
      for (const headers of [
        {} as Record<string, string>,
        { Authorization: 'Bearer wrong' },
        { Authorization: 'Bearer scrape-me-012345678' },
        { Authorization: 'Basic scrape-me-0123456789' },
      ]) {
        const res = await request(`${server.url}/metrics`, { headers });
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ code: 'ERR_UNAUTHORIZED', message: expect.any(String), status: 401 });
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
        expect(res.text).not.toContain('http_requests_total');
      }
      const ok = await request(`${server.url}/metrics`, { headers: { Authorization: 'Bearer scrape-me-0123456789' } });
      expect(ok.status).toBe(200);
      // The refusals above were counted, under the /metrics route.
      expect(sample(ok.text, 'http_requests_total', { method: 'GET', route: '/metrics', status: '401' })).toBe(4);
      expect(
        (
          await request(`${server.url}/metrics`, {
            method: 'POST',
            headers: { Authorization: 'Bearer scrape-me-0123456789' },
          })
        ).status,
      ).toBe(405);
    } finally {
      await server.close();
      await services.cleanup();
    }
  });

  it('answers 404 when METRICS_ENABLED=false, and still serves everything else', async () => {
    const services = await openTestServices({ env: { METRICS_ENABLED: 'false' }, store: 'memory' });
    const server = await startTestServer(services);
    try {
      const res = await request(`${server.url}/metrics`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'ERR_NOT_FOUND', message: expect.any(String), status: 404 });
      expect((await request(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.close();
      await services.cleanup();
    }
  });

  it('keeps each instance on a registry of its own, never the global one', async () => {
    const a = createMetrics();
    const b = createMetrics();
    a.countRateLimitRejection('api');
    expect(await a.registry.getSingleMetricAsString('rate_limit_rejections_total')).toContain(
      'rate_limit_rejections_total{limit="api"} 1',
    );
    expect(await b.registry.getSingleMetricAsString('rate_limit_rejections_total')).not.toContain('limit="api"');
    expect(globalRegistry.getSingleMetric('http_requests_total')).toBeUndefined();
  });

  it('counts failures of wrapped stores and passes their errors through', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const failure = new Error('ECONNREFUSED');
    const stores = instrumentStores(
      {
        kind: 'memory',
        keyPrefix: 't:',
        rateLimit: { driver: 'memory', db: new Map() },
        challenges: { get: async () => null, create: async () => Promise.reject(failure), delete: async () => true },
        spentTokens: {} as Stores['spentTokens'],
        counters: { hit: () => Promise.reject(failure) },
        ping: async () => {},
        close: async () => {},
      } as unknown as Stores,
      metrics,
    );
    await expect(stores.challenges.get('x')).resolves.toBeNull();
    await expect(stores.challenges.create('x', {}, 1000)).rejects.toBe(failure);
    await expect(stores.counters.hit('x', 1000)).rejects.toBe(failure);
    const text = await metrics.registry.metrics();
    expect(sample(text, 'store_errors_total', { store: 'challenges' })).toBe(1);
    expect(sample(text, 'store_errors_total', { store: 'counters' })).toBe(1);
  });

  it('reads METRICS_ENABLED and METRICS_TOKEN, never echoing the token when it is refused', () => {
    expect(loadConfig({}).METRICS_ENABLED).toBe(true);
    expect(loadConfig({}).METRICS_TOKEN).toBeUndefined();
    expect(loadConfig({ METRICS_ENABLED: 'false', METRICS_TOKEN: 'abc' })).toMatchObject({
      METRICS_ENABLED: false,
      METRICS_TOKEN: 'abc',
    });
    expect(() => loadConfig({ METRICS_ENABLED: 'maybe' })).toThrow(/METRICS_ENABLED/);
    const long = 't'.repeat(600);
    expect(() => loadConfig({ METRICS_TOKEN: long })).toThrow(/METRICS_TOKEN/);
    try {
      loadConfig({ METRICS_TOKEN: long });
    } catch (err) {
      expect((err as Error).message).not.toContain(long);
    }
  });
});
