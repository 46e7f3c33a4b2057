/**
 * The forward-auth endpoint's own listener, ahead of Koa (decision 0019), through real HTTP:
 * it answers only its protocols' paths, counts each check once in gateway_checks_total (never
 * in the HTTP request metrics), logs passes at debug and challenges and denials at info with
 * their rule, and marks only passes cacheable.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../facade/app.ts';
import { listen, type RunningServer } from '../../facade/server.ts';
import { createSite } from '../../src/captcha/sites.ts';
import { setGateway } from '../../src/gateway/sites.ts';
import { CLEARANCE_COOKIE, issueClearance } from '../../src/gateway/clearance.ts';
import { createKeyedUser, openTestServices, type TestServices } from '../helpers/services.ts';
import { BROWSER_UA, forwardAuth, rawGet } from './proxies.ts';

const HOST = 'fa.localhost';
let services: TestServices;
let server: RunningServer;
let base: string;
let sitekey: string;
const lines: Array<{ level: number; msg: string; outcome?: string; rule?: string; path?: string }> = [];

beforeAll(async () => {
  services = await openTestServices();
  const log = pino(
    { level: 'debug' },
    new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as (typeof lines)[0]);
        done();
      },
    }),
  );
  server = await listen(createApp({ ...services, log }), { port: 0, host: '127.0.0.1', requestTimeoutMs: 10_000 });
  base = `http://127.0.0.1:${server.port}`;
  const { user } = await createKeyedUser(services, 'forward-auth');
  const em = services.orm.em.fork();
  const { site } = await createSite(em, user.id, { name: 'FA', origins: [`https://${HOST}`] });
  sitekey = site.sitekey;
  await setGateway(em, services.stores, user.id, site.sitekey, {
    hosts: [HOST],
    clearance_ttl: 3600,
    contact: '',
    rules: [{ name: 'private', path: '/admin', action: 'deny' }],
    thresholds: { challenge: 10, deny: 50 },
    default_action: 'challenge',
  });
});

afterAll(async () => {
  await server?.close(1000);
  await services?.cleanup();
});

const cookie = (ip: string) =>
  `${CLEARANCE_COOKIE}=${issueClearance(services.config.tokenKey!, { sitekey, ip, userAgent: BROWSER_UA }, Date.now(), 3600)}`;

const metricsText = () => services.metrics.registry.metrics();

describe('the forward-auth listener', () => {
  it('answers a pass ahead of the API stack: cacheable, no request id, nosniff', async () => {
    const ip = '198.51.100.40';
    const pass = await forwardAuth(base, HOST, { uri: '/page.css', ip, cookie: cookie(ip) });
    expect(pass.status).toBe(204);
    expect(pass.headers['cache-control']).toBe('max-age=5');
    expect(pass.headers['x-gateway-rule']).toBe('clearance');
    expect(pass.headers['x-request-id']).toBeUndefined();
    expect(pass.headers['x-content-type-options']).toBe('nosniff');
    // A query string on the endpoint's path changes nothing; HEAD is answered alike.
    const headers = { 'X-Forwarded-Host': HOST, 'X-Forwarded-Uri': '/page.css', 'X-Forwarded-For': ip };
    const withQuery = await rawGet(`${base}/api/v1/gateway/auth/caddy?x=1`, {
      ...headers,
      'User-Agent': BROWSER_UA,
      Cookie: cookie(ip),
    });
    expect(withQuery.status).toBe(204);
    const head = await rawGet(
      `${base}/api/v1/gateway/auth/caddy`,
      { ...headers, 'User-Agent': BROWSER_UA, Cookie: cookie(ip) },
      'HEAD',
    );
    expect(head.status).toBe(204);
  });

  it('answers a path naming no protocol with a plain 404, and leaves every other path to Koa', async () => {
    for (const p of ['/api/v1/gateway/auth/apache', '/api/v1/gateway/auth/nginx/x', '/api/v1/gateway/auth/']) {
      const res = await rawGet(`${base}${p}`, {});
      expect(res.status, p).toBe(404);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.body).toContain('nginx, caddy, traefik');
    }
    const api = await rawGet(`${base}/api/v1/gateway/authx`, {});
    expect(api.status).toBe(404);
    expect(api.headers['x-request-id']).toBeDefined();
    expect(JSON.parse(api.body)).toMatchObject({ code: 'ERR_NOT_FOUND' });
  });

  it('counts each check once in gateway_checks_total and never in the HTTP request metrics', async () => {
    const checks = async () =>
      (await services.metrics.registry.getSingleMetric('gateway_checks_total')!.get()).values.reduce(
        (n, v) => n + v.value,
        0,
      );
    const before = await checks();
    for (let i = 0; i < 3; i++) await forwardAuth(base, HOST, { uri: `/p${i}`, ip: '198.51.100.41', accept: '*/*' });
    expect((await checks()) - before).toBe(3);
    expect(await metricsText()).not.toContain('gateway/auth');
  });

  it('logs a pass at debug only, and a challenge and a denial at info with their rule', async () => {
    const ip = '198.51.100.42';
    const since = lines.length;
    await forwardAuth(base, HOST, { uri: '/seen.css', ip, cookie: cookie(ip) });
    await forwardAuth(base, HOST, { uri: '/admin/', ip, cookie: cookie(ip) });
    await forwardAuth(base, HOST, { uri: '/page', ip, mode: 'navigate' });
    const checks = lines.slice(since).filter((l) => l.msg === 'gateway check');
    expect(checks.map((l) => [l.level, l.outcome, l.rule, l.path])).toEqual([
      [20, 'pass', 'clearance', '/seen.css'],
      [30, 'deny', 'private', '/admin/'],
      [30, 'challenge', 'default', '/page'],
    ]);
    // No request line for any of them: the API's request log never saw them.
    expect(lines.slice(since).filter((l) => l.msg === 'request')).toEqual([]);
  });
});
