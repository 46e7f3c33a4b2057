/**
 * Gateway mode behind real proxies: Debian's nginx (auth_request) and Caddy (forward_auth),
 * each in front of a static fixture site and asking this test's service. A visitor in Chromium
 * is challenged once and then browses on the clearance cookie; the cookie does not travel to
 * another network or browser; scripts get the challenge page on a navigation and a plain 401
 * on a fetch; a Googlebot passes only when reverse and forward DNS (a name server of the
 * test's own) confirm it; the feed passes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createSite } from '../../src/captcha/sites.ts';
import { setGateway } from '../../src/gateway/sites.ts';
import { CLEARANCE_COOKIE } from '../../src/gateway/clearance.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { startTestNameServer, type TestNameServer } from '../helpers/dns-server.ts';
import { answerImages, chromiumMissing, contextOptions, launchChromium } from '../e2e/harness.ts';
import { hasCaddy, hasNginx, rawGet, startCaddy, startNginx, writeFixtureSite, type RunningProxy } from './proxies.ts';

/** Skipped off CI when a binary is missing; on CI (.ci/run installs them) a missing one fails. */
const skip = (!hasNginx || !hasCaddy || chromiumMissing) && !process.env.CI;

const GOOGLEBOT_UA = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const SCRIPT_UA = 'python-requests/2.32.3';

let ns: TestNameServer;
let services: TestServices;
let server: TestServer;
let root: string;
let browser: Browser;
const proxies: Record<'nginx' | 'caddy', RunningProxy> = {} as never;

beforeAll(async () => {
  if (skip) return;
  ns = await startTestNameServer({
    stallZone: 'stall.invalid',
    ptr: {
      '1.66.249.66.in-addr.arpa': 'crawl-66-249-66-1.googlebot.com',
      '2.66.249.66.in-addr.arpa': 'crawl-66-249-66-2.googlebot.com',
    },
    // .2's name resolves elsewhere: its PTR alone proves nothing.
    records: { 'crawl-66-249-66-1.googlebot.com': '66.249.66.1', 'crawl-66-249-66-2.googlebot.com': '66.249.66.99' },
  });
  services = await openTestServices({ env: { GATEWAY_DNS_SERVERS: ns.address, CAPTCHA_ENGINE: 'auto' } });
  server = await startTestServer(services);
  root = mkdtempSync(path.join(os.tmpdir(), 'gw-site-'));
  writeFixtureSite(root);
  proxies.nginx = await startNginx({ host: 'nginx.localhost', root, service: server.url });
  proxies.caddy = await startCaddy({ host: 'caddy.localhost', root, service: server.url });
  const { user } = await createKeyedUser(services, 'gateway-proxies');
  const em = services.orm.em.fork();
  const { site } = await createSite(em, user.id, {
    name: 'Fixture',
    origins: [proxies.nginx.origin, proxies.caddy.origin],
    // The visitor below is Chromium driven over the DevTools protocol, which scores at most 0.3
    // (docs/challenges.md): it reads the image, and this site takes the token it earns. A person
    // at the default minimum is test/adversary/person.test.ts's.
    min_score: 0,
  });
  await setGateway(em, services.stores, user.id, site.sitekey, {
    hosts: ['nginx.localhost', 'caddy.localhost'],
    clearance_ttl: 3600,
    contact: 'Write to webmaster@fixture.test if this check keeps failing.',
    rules: [
      { name: 'search', preset: 'search-crawlers', action: 'allow' },
      { name: 'feeds', preset: 'feeds', action: 'allow' },
    ],
    thresholds: { challenge: 10, deny: 50 },
    default_action: 'challenge',
    // The person below opens 50 pages as fast as a test drives them: out of a clearance's
    // pace, which test/gateway/walls.test.ts tests on its own.
    pace: { burst: 200, per_minute: 600, per_day: 1000 },
  });
  await services.engineReference?.warm();
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  for (const p of Object.values(proxies)) await p?.stop();
  await server?.close();
  await services?.cleanup();
  await ns?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe.skipIf(skip).each((process.env.GATEWAY_PROXIES?.split(',') ?? ['nginx', 'caddy']) as Array<'nginx' | 'caddy'>)(
  'behind %s',
  (name) => {
    const proxy = () => proxies[name];
    const host = () => new URL(proxy().origin).host;
    const get = (p: string, headers: Record<string, string>) =>
      rawGet(`http://127.0.0.1:${proxy().port}${p}`, { Host: host(), ...headers });

    it(
      'challenges a visitor once, then serves 50 navigations and their subresources on the cookie',
      { timeout: 180_000 },
      async () => {
        const context = await browser.newContext(contextOptions());
        try {
          const page = await context.newPage();
          const answered = answerImages({ services }, page);
          const refused: string[] = [];
          page.on('response', (res) => {
            const url = new URL(res.url());
            if (
              url.host === host() &&
              !url.pathname.startsWith('/.auditcaptcha/') &&
              res.status() >= 300 &&
              res.status() !== 304
            )
              refused.push(`${res.status()} ${url.pathname}`);
          });
          await page.goto(`${proxy().origin}/page1.html?from=test`, { timeout: 30_000 });
          expect(new URL(page.url()).pathname).toBe('/.auditcaptcha/challenge');
          await page
            .getByRole('heading', { level: 1, name: 'Checking that you are a person' })
            .waitFor({ timeout: 10_000 });
          expect(await page.locator('html').getAttribute('lang')).toBe('en');
          expect(await page.getByText('webmaster@fixture.test').count()).toBe(1);
          refused.length = 0; // the first navigation's redirect is the challenge itself
          await page.waitForFunction(() => performance.now() > 1700, undefined, { timeout: 10_000 });
          const verify = page.getByRole('checkbox', { name: 'Verify you are human' });
          await verify.waitFor({ timeout: 20_000 });
          await verify.click();
          await page.waitForURL(`${proxy().origin}/page1.html?from=test`, { timeout: 90_000 });
          expect(answered).toHaveLength(1);
          await page.getByRole('heading', { name: 'Fixture page 1' }).waitFor({ timeout: 10_000 });
          const cookies = await context.cookies(proxy().origin);
          expect(cookies.find((c) => c.name === CLEARANCE_COOKIE)?.httpOnly).toBe(true);

          for (let n = 2; n <= 51; n++) {
            await page.goto(`${proxy().origin}/page${n}.html`, { timeout: 15_000 });
            await page.getByRole('heading', { name: `Fixture page ${n}` }).waitFor({ timeout: 10_000 });
          }
          await page.waitForFunction(() => document.documentElement.dataset.ready === '1', undefined, {
            timeout: 10_000,
          });
          expect(refused).toEqual([]);

          // The same cookie from another browser, or from another network, is challenged.
          const cookie = `${CLEARANCE_COOKIE}=${cookies.find((c) => c.name === CLEARANCE_COOKIE)!.value}`;
          const ua = await page.evaluate(() => navigator.userAgent);
          const same = await get('/page3.html', { Cookie: cookie, 'User-Agent': ua, Accept: 'text/html' });
          expect(same.status).toBe(200);
          const otherUa = await get('/page3.html', {
            Cookie: cookie,
            'User-Agent': `${ua} Other/1`,
            Accept: 'text/html',
          });
          expect(otherUa.status).toBe(302);
          expect(otherUa.headers.location).toBe(`/.auditcaptcha/challenge?return=${encodeURIComponent('/page3.html')}`);
          const otherNet = await get('/page3.html', {
            Cookie: cookie,
            'User-Agent': ua,
            Accept: 'text/html',
            [proxy().clientHeader]: '198.51.100.23',
          });
          expect(otherNet.status).toBe(302);
        } finally {
          await context.close();
        }
      },
    );

    it('gives a script the challenge page on a navigation and a plain 401 on a fetch', async () => {
      const nav = await get('/page2.html', { 'User-Agent': SCRIPT_UA, Accept: 'text/html,application/xhtml+xml' });
      expect(nav.status).toBe(302);
      const challenge = await get(nav.headers.location!, { 'User-Agent': SCRIPT_UA, Accept: 'text/html' });
      expect(challenge.status).toBe(200);
      expect(challenge.body).toContain('<h1>Checking that you are a person</h1>');
      const fetched = await get('/page2.html', { 'User-Agent': SCRIPT_UA, Accept: '*/*', 'Sec-Fetch-Mode': 'cors' });
      expect(fetched.status).toBe(401);
      expect(fetched.body).not.toContain('<');
    });

    it('lets Googlebot in only from an address whose reverse and forward DNS confirm it', async () => {
      const real = await get('/page4.html', {
        'User-Agent': GOOGLEBOT_UA,
        Accept: 'text/html',
        [proxy().clientHeader]: '66.249.66.1',
      });
      expect(real.status).toBe(200);
      expect(real.body).toContain('Fixture page 4');
      for (const ip of ['66.249.66.2', '192.0.2.80']) {
        const fake = await get('/page4.html', {
          'User-Agent': GOOGLEBOT_UA,
          Accept: 'text/html',
          [proxy().clientHeader]: ip,
        });
        expect(fake.status).toBe(302);
      }
    });

    it('serves the feed to a feed reader', async () => {
      const feed = await get('/blog/feed.xml', {
        'User-Agent': 'FreshRSS/1.24 (Linux)',
        Accept: 'application/rss+xml',
      });
      expect(feed.status).toBe(200);
      expect(feed.body).toContain('<rss');
    });
  },
);
