/**
 * What the service shows to whom (issue 26's smaller items): `nosniff` on every answer, HSTS
 * when the public address is https, /metrics for loopback or a token only, and password tries
 * on a share page bounded per report across every network an attacker holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { request } from '../helpers/http.ts';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.ts';

let services: TestServices;
let server: TestServer;
let site: FixtureSite;

beforeAll(async () => {
  services = await openTestServices({
    env: {
      ANALYZER_ALLOW_PRIVATE: 'true',
      TRUST_PROXY: 'true',
      PUBLIC_URL: 'https://audit.example.test',
      SHARE_PASSWORD_ATTEMPTS: '3',
      SHARE_PASSWORD_REPORT_ATTEMPTS: '5',
    },
  });
  server = await startTestServer(services);
  site = await startFixtureSite();
});
afterAll(async () => {
  await server?.close();
  await site?.close();
  await services?.cleanup();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.url}${path}`, { headers });

describe('headers on every answer', () => {
  it.each([
    ['/healthz', 200],
    ['/api/openapi.json', 200],
    ['/api/v1/reports', 401],
    ['/no/such/route', 404],
  ])('%s', async (path, status) => {
    const res = await get(path);
    expect(res.status).toBe(status);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
  });
});

describe('/metrics without METRICS_TOKEN', () => {
  it('answers a loopback client', async () => {
    expect((await get('/metrics')).status).toBe(200);
  });

  it('refuses anyone else (behind the trusted proxy, the address it appended)', async () => {
    const res = await get('/metrics', { 'X-Forwarded-For': '203.0.113.9' });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe('ERR_FORBIDDEN');
    // A client cannot write itself a loopback address further left.
    expect((await get('/metrics', { 'X-Forwarded-For': '127.0.0.1, 203.0.113.9' })).status).toBe(403);
  });
});

describe('share page password tries', () => {
  it('are capped per report across all addresses, not only per address', async () => {
    const owner = await createKeyedUser(services, 'owner');
    const make = async () => {
      const res = await request(`${server.url}/api/v1/reports`, {
        method: 'POST',
        key: owner.key,
        form: { url: `${site.url}/good`, privacy: '2', password: 'right-one' },
      });
      expect(res.status).toBe(201);
      // Share pages live under the report's random share id.
      return (res.body.data.share_url as string).split('/').pop()!;
    };
    const [target, other] = [await make(), await make()];
    // One guess from each of many /64s: each address is far under its own cap.
    const guess = (id: string, n: number, password = 'guess') =>
      fetch(`${server.url}/reports/${id}`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          'X-Forwarded-For': `2001:db8:${n.toString(16)}::1`,
        },
        body: new URLSearchParams({ password }).toString(),
      });
    const statuses: number[] = [];
    for (let n = 1; n <= 7; n++) statuses.push((await guess(target, n)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    // Even the right password waits now, and the cap is the report's own: another report still answers.
    expect((await guess(target, 100, 'right-one')).status).toBe(429);
    expect((await guess(other, 101, 'right-one')).status).toBe(200);
  });
});
