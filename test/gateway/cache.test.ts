/**
 * nginx's `proxy_cache` on the auth subrequest, as docs/gateway.md configures it (Debian's
 * nginx in front of the fixture site): a pass is kept for GATEWAY_PASS_CACHE_SECONDS under the
 * method, the URI, the client's address, its User-Agent and its clearance cookie, so a cleared
 * visitor's repeat of one address is answered by nginx; any other page, browser, address or
 * cookie asks the service, and challenges and denials are never kept.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSite } from '../../src/captcha/sites.ts';
import { setGateway } from '../../src/gateway/sites.ts';
import { CLEARANCE_COOKIE, issueClearance } from '../../src/gateway/clearance.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import {
  BROWSER_UA,
  forwardAuth,
  hasNginx,
  rawGet,
  startNginx,
  writeFixtureSite,
  type RunningProxy,
} from './proxies.ts';

const skip = !hasNginx && !process.env.CI;
const HOST = 'nginx.localhost';

let services: TestServices;
let server: TestServer;
let nginx: RunningProxy;
let root: string;
let sitekey: string;

beforeAll(async () => {
  if (skip) return;
  // Two seconds, so that the test of expiry waits three rather than six. nginx counts expiry in
  // whole seconds and keeps an entry through its last second: it lives 2 to 3 seconds.
  services = await openTestServices({ env: { GATEWAY_PASS_CACHE_SECONDS: '2' } });
  server = await startTestServer(services);
  root = mkdtempSync(path.join(os.tmpdir(), 'gw-cache-site-'));
  writeFixtureSite(root);
  nginx = await startNginx({ host: HOST, root, service: server.url, clientIpHeader: 'X-Test-Client', cache: true });
  const { user } = await createKeyedUser(services, 'gateway-cache');
  const em = services.orm.em.fork();
  const { site } = await createSite(em, user.id, { name: 'Cache', origins: [nginx.origin] });
  sitekey = site.sitekey;
  await setGateway(em, services.stores, user.id, site.sitekey, {
    hosts: [HOST],
    clearance_ttl: 3600,
    contact: '',
    rules: [{ name: 'private', path: '/admin', action: 'deny' }],
    thresholds: { challenge: 10, deny: 50 },
    default_action: 'challenge',
    pace: { burst: 200, per_minute: 600, per_day: 1000 },
  });
}, 60_000);

afterAll(async () => {
  await nginx?.stop();
  await server?.close();
  await services?.cleanup();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** Checks the service has answered: the sum of its gateway_checks_total series. */
async function checks(): Promise<number> {
  const metric = await services.metrics.registry.getSingleMetric('gateway_checks_total')!.get();
  return metric.values.reduce((sum, v) => sum + v.value, 0);
}

const cookieFor = (ip: string, ua = BROWSER_UA) =>
  `${CLEARANCE_COOKIE}=${issueClearance(services.config.tokenKey!, { sitekey, ip, userAgent: ua }, Date.now(), 3600)}`;

/** A navigation through nginx from `ip` (its real-IP header), with these headers. */
const visit = (uri: string, ip: string, headers: Record<string, string> = {}) =>
  rawGet(`http://127.0.0.1:${nginx.port}${uri}`, {
    Host: HOST,
    'X-Test-Client': ip,
    'User-Agent': BROWSER_UA,
    Accept: 'text/html',
    ...headers,
  });

/** What `fn` costs in checks the service answered. */
async function checksOf(fn: () => Promise<unknown>): Promise<number> {
  const before = await checks();
  await fn();
  return (await checks()) - before;
}

describe.skipIf(skip)('the proxy cache of pass answers', () => {
  it('answers only passes as cacheable, for GATEWAY_PASS_CACHE_SECONDS', async () => {
    const ip = '198.51.100.20';
    const pass = await forwardAuth(server.url, HOST, { uri: '/page1.html', ip, cookie: cookieFor(ip) });
    expect(pass.status).toBe(204);
    expect(pass.headers['cache-control']).toBe('max-age=2');
    const challenge = await forwardAuth(server.url, HOST, { uri: '/page1.html', ip, mode: 'navigate' });
    const refusal = await forwardAuth(server.url, HOST, { uri: '/app.js', ip, mode: 'no-cors' });
    const denial = await forwardAuth(server.url, HOST, { uri: '/admin/', ip, cookie: cookieFor(ip) });
    expect([challenge.status, refusal.status, denial.status]).toEqual([302, 401, 403]);
    for (const res of [challenge, refusal, denial]) expect(res.headers['cache-control']).toBe('no-store');
  });

  it("serves a cleared visitor's repeat of one page from nginx's cache", async () => {
    const ip = '198.51.100.21';
    const cookie = cookieFor(ip);
    expect(
      await checksOf(async () => expect((await visit('/page2.html', ip, { Cookie: cookie })).status).toBe(200)),
    ).toBe(1);
    expect(
      await checksOf(async () => expect((await visit('/page2.html', ip, { Cookie: cookie })).status).toBe(200)),
    ).toBe(0);
    // Another page is another key: asked, and counted by the clearance's pace.
    expect(
      await checksOf(async () => expect((await visit('/page3.html', ip, { Cookie: cookie })).status).toBe(200)),
    ).toBe(1);
  });

  it('asks the service again for another browser, address or cookie, and never keeps a challenge', async () => {
    const ip = '198.51.100.22';
    const cookie = cookieFor(ip);
    expect((await visit('/page4.html', ip, { Cookie: cookie })).status).toBe(200);
    // The cookie copied to another browser or network: not the cached pass, but a challenge, each time.
    for (let i = 0; i < 2; i++) {
      const other = await checksOf(async () => {
        expect((await visit('/page4.html', ip, { Cookie: cookie, 'User-Agent': 'Other/1.0' })).status).toBe(302);
        expect((await visit('/page4.html', '203.0.113.22', { Cookie: cookie })).status).toBe(302);
        expect((await visit('/page4.html', ip)).status).toBe(302);
        expect((await visit('/page4.html', ip, { Cookie: `${cookie}x` })).status).toBe(302);
      });
      expect(other).toBe(4);
    }
  });

  it('never keeps a denial: a pass of one page is not a pass of another', async () => {
    const ip = '198.51.100.23';
    const cookie = cookieFor(ip);
    expect((await visit('/page5.html', ip, { Cookie: cookie })).status).toBe(200);
    for (let i = 0; i < 2; i++)
      expect(
        await checksOf(async () => expect((await visit('/admin/', ip, { Cookie: cookie })).status).toBe(403)),
      ).toBe(1);
  });

  it('asks again once a kept pass is older than its max-age, then keeps the new one', async () => {
    const ip = '198.51.100.24';
    const cookie = cookieFor(ip);
    expect((await visit('/page6.html', ip, { Cookie: cookie })).status).toBe(200);
    expect(await checksOf(() => visit('/page6.html', ip, { Cookie: cookie }))).toBe(0);
    // A real wait: the entry expires on nginx's own clock, which no test clock drives, at most
    // a second after its max-age.
    await new Promise((r) => setTimeout(r, 3_200));
    expect(await checksOf(() => visit('/page6.html', ip, { Cookie: cookie }))).toBe(1);
    // The pass asked for again replaced the kept file; with open_file_cache holding the old
    // one's descriptor, nginx must read the new file (the old one is expired: another check).
    expect(await checksOf(() => visit('/page6.html', ip, { Cookie: cookie }))).toBe(0);
  });
});
