/**
 * The forward-auth endpoint through the real HTTP stack, called as a trusted proxy would
 * (loopback, X-Forwarded-* headers): rules, presets, verified crawlers by forward-confirmed
 * reverse DNS (a name server of the test's own on loopback), clearances, and a rule change
 * seen at once by two instances sharing one database and store.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTokenId, sealToken, type TokenClaims } from '../../src/captcha/tokens.ts';
import { networkKey } from '../../src/net/client-key.ts';
import { createSite } from '../../src/captcha/sites.ts';
import { SiteSchema } from '../../src/entities/site.entity.ts';
import { gatewayFindings } from '../../src/gateway/sites.ts';
import { createApp } from '../../facade/app.ts';
import { listen, type RunningServer } from '../../facade/server.ts';
import { issueClearance, CLEARANCE_COOKIE } from '../../src/gateway/clearance.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { startTestNameServer, type TestNameServer } from '../helpers/dns-server.ts';
import { request } from '../helpers/http.ts';
import { BROWSER_UA, forwardAuth, rawGet as get, type OriginalRequest } from './proxies.ts';

const HOST = 'protected.test';
const GOOGLEBOT_UA = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

let ns: TestNameServer;
let services: TestServices;
let server: TestServer;
let second: RunningServer;
let key: string;
let sitekey: string;

/** A forward-auth call as Caddy makes it for the original request described. */
const auth = (base: string, orig: OriginalRequest) => forwardAuth(base, HOST, orig);

const rules = [
  { name: 'search', preset: 'search-crawlers', action: 'allow' },
  { name: 'feeds', preset: 'feeds', action: 'allow' },
  { name: 'previews', preset: 'link-previews', action: 'allow' },
  { name: 'ai', preset: 'ai-crawlers', action: 'deny' },
  { name: 'office', networks: ['203.0.113.0/24'], action: 'allow' },
  { name: 'curl', user_agent: '^curl/', action: 'weigh', weight: 60 },
];

beforeAll(async () => {
  ns = await startTestNameServer({
    stallZone: 'stall.invalid',
    ptr: {
      '1.66.249.66.in-addr.arpa': 'crawl-66-249-66-1.googlebot.com',
      '1.0.0.192.in-addr.arpa': 'crawl-impostor.googlebot.com.evil.example',
    },
    records: {
      'crawl-66-249-66-1.googlebot.com': '66.249.66.1',
      'crawl-impostor.googlebot.com.evil.example': '192.0.0.1',
    },
  });
  services = await openTestServices({ env: { GATEWAY_DNS_SERVERS: ns.address, GATEWAY_DNS_TIMEOUT_MS: '2000' } });
  server = await startTestServer(services);
  second = await listen(createApp(services), { port: 0, host: '127.0.0.1', requestTimeoutMs: 30_000 });
  const keyed = await createKeyedUser(services, 'gateway');
  key = keyed.key;
  const { site } = await createSite(services.orm.em.fork(), keyed.user.id, {
    name: 'Protected',
    origins: [`https://${HOST}`],
  });
  sitekey = site.sitekey;
  const res = await request(`${server.url}/api/v1/sites/${sitekey}/gateway`, {
    method: 'PUT',
    key,
    json: { gateway: { hosts: [HOST], contact: 'Write to help@protected.test.', rules } },
  });
  expect(res.status).toBe(200);
  expect(res.body.data.gateway.clearance_ttl).toBe(86_400);
}, 60_000);

afterAll(async () => {
  await second?.close(1000);
  await server?.close();
  await services?.cleanup();
  await ns?.close();
});

describe('the forward-auth endpoint', () => {
  it('sends a navigation without clearance to the challenge page, with the path to return to', async () => {
    const res = await auth(server.url, { uri: '/docs/a?b=1', mode: 'navigate' });
    expect(res.status).toBe(302);
    expect(res.headers['location']).toBe(`/.auditcaptcha/challenge?return=${encodeURIComponent('/docs/a?b=1')}`);
  });

  it('answers nginx (X-Original-URI) with 401 instead of a redirect', async () => {
    const res = await get(`${server.url}/api/v1/gateway/auth/nginx`, {
      'X-Forwarded-Host': HOST,
      'X-Original-URI': '/x',
      'Sec-Fetch-Mode': 'navigate',
      'User-Agent': BROWSER_UA,
    });
    expect(res.status).toBe(401);
  });

  it('refuses a script fetch with a plain-text 401, never HTML', async () => {
    const res = await auth(server.url, { uri: '/api/data', accept: '*/*', ua: 'python-requests/2.32' });
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toMatch(/browser check/);
  });

  it('gives a script the challenge on a navigation (Accept: text/html)', async () => {
    const res = await auth(server.url, { accept: 'text/html,*/*', ua: 'python-requests/2.32' });
    expect(res.status).toBe(302);
  });

  it('passes a request with a valid clearance, and not one from another network or User-Agent', async () => {
    const value = issueClearance(
      services.config.tokenKey!,
      { sitekey, ip: '198.51.100.7', userAgent: BROWSER_UA },
      Date.now(),
      600,
    );
    const cookie = `${CLEARANCE_COOKIE}=${value}`;
    expect((await auth(server.url, { cookie, accept: '*/*' })).status).toBe(204);
    // The same /24 passes; another network or browser does not.
    expect((await auth(server.url, { cookie, ip: '198.51.100.99', accept: '*/*' })).status).toBe(204);
    expect((await auth(server.url, { cookie, ip: '192.0.2.7', accept: '*/*' })).status).toBe(401);
    expect((await auth(server.url, { cookie, ua: `${BROWSER_UA} Edg/1`, accept: '*/*' })).status).toBe(401);
    const forged = `${CLEARANCE_COOKIE}=${value.slice(0, -2)}AA`;
    expect((await auth(server.url, { cookie: forged, accept: '*/*' })).status).toBe(401);
  });

  it('lets a Googlebot through only when reverse and forward DNS confirm it', async () => {
    const real = await auth(server.url, { ip: '66.249.66.1', ua: GOOGLEBOT_UA, accept: 'text/html' });
    expect(real.status).toBe(204);
    expect(real.headers['x-gateway-rule']).toBe('search');
    // A PTR under another domain (googlebot.com is only a label of it), and no PTR at all.
    expect((await auth(server.url, { ip: '192.0.0.1', ua: GOOGLEBOT_UA, accept: 'text/html' })).status).toBe(302);
    expect((await auth(server.url, { ip: '198.51.100.8', ua: GOOGLEBOT_UA, accept: 'text/html' })).status).toBe(302);
  });

  it('lets feeds and link previews through, denies AI crawlers, weighs curl into a denial', async () => {
    expect((await auth(server.url, { uri: '/blog/feed/', ua: 'FreshRSS/1.24', accept: '*/*' })).status).toBe(204);
    expect(
      (await auth(server.url, { uri: '/post/1', ua: 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)' }))
        .status,
    ).toBe(204);
    const ai = await auth(server.url, {
      uri: '/post/1',
      ua: 'Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)',
    });
    expect(ai.status).toBe(403);
    expect(ai.body).toMatch(/"ai"/);
    const curl = await auth(server.url, { ua: 'curl/8.5.0', accept: '*/*' });
    expect(curl.status).toBe(403);
    expect(curl.headers['x-gateway-rule']).toBe('curl');
    expect((await auth(server.url, { ip: '203.0.113.9', accept: '*/*' })).status).toBe(204);
  });

  it('believes forwarded headers only from trusted proxies, and knows only its hosts', async () => {
    const res = await get(`${server.url}/api/v1/gateway/auth/caddy`, {
      'X-Forwarded-Host': 'other.test',
      'X-Forwarded-Uri': '/',
    });
    expect(res.status).toBe(403);
    expect(res.headers['x-gateway-rule']).toBe('unknown-host');
  });

  it('applies a rule change at once on both instances sharing the store', async () => {
    const secondUrl = `http://127.0.0.1:${second.port}`;
    const probe = { uri: '/open/page', accept: '*/*' };
    expect((await auth(server.url, probe)).status).toBe(401);
    expect((await auth(secondUrl, probe)).status).toBe(401);
    const changed = await request(`${secondUrl}/api/v1/sites/${sitekey}/gateway`, {
      method: 'PUT',
      key,
      json: { gateway: { hosts: [HOST], rules: [{ name: 'open', path: '/open/', action: 'allow' }, ...rules] } },
    });
    expect(changed.status).toBe(200);
    expect((await auth(server.url, probe)).status).toBe(204);
    expect((await auth(secondUrl, probe)).status).toBe(204);
  });
});

describe('saving gateway settings', () => {
  it('answers 422 naming the field of an unsafe pattern, a bad network and a foreign host', async () => {
    const res = await request(`${server.url}/api/v1/sites/${sitekey}/gateway`, {
      method: 'PUT',
      key,
      json: {
        gateway: {
          hosts: [HOST],
          rules: [
            { user_agent: '(?=x)', action: 'deny' },
            { networks: ['10.0.0.0/33'], action: 'allow' },
            { path: 'no-slash', action: 'allow' },
          ],
        },
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('ERR_VALIDATION');
    expect(Object.keys(res.body.errors).sort()).toEqual(['rules.0.user_agent', 'rules.1.networks.0', 'rules.2.path']);
    const foreign = await request(`${server.url}/api/v1/sites/${sitekey}/gateway`, {
      method: 'PUT',
      key,
      json: { gateway: { hosts: ['elsewhere.test'] } },
    });
    expect(foreign.status).toBe(422);
    expect(Object.keys(foreign.body.errors)).toEqual(['hosts.0']);
  });

  it('answers 422 to text PostgreSQL cannot store, and keeps the settings saved before', async () => {
    for (const contact of ['help\ud800@protected.test', 'help\u0000@protected.test']) {
      const res = await request(`${server.url}/api/v1/sites/${sitekey}/gateway`, {
        method: 'PUT',
        key,
        json: { gateway: { hosts: [HOST], contact, rules } },
      });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('ERR_VALIDATION');
    }
    const kept = await request(`${server.url}/api/v1/sites/${sitekey}/gateway`, { key });
    // As the last good save left it (the rule-change test saved it without a contact).
    expect(kept.body.data.gateway.contact).toBe('');
  });

  it('reads the settings back, and 404s another account’s site', async () => {
    const res = await request(`${server.url}/api/v1/sites/${sitekey}/gateway`, { key });
    expect(res.status).toBe(200);
    expect(res.body.data.gateway.hosts).toEqual([HOST]);
    const other = await createKeyedUser(services, 'other');
    const theirs = await request(`${server.url}/api/v1/sites/${sitekey}/gateway`, { key: other.key });
    expect(theirs.status).toBe(404);
  });
});

describe('the clearance form', () => {
  /** A token as the widget's managed flow seals it for a visitor at 198.51.100.7 on HOST. */
  function token(over: Partial<TokenClaims> = {}): string {
    return sealToken(
      {
        id: newTokenId(),
        site: sitekey,
        hostname: HOST,
        iat: Date.now(),
        kind: 'v2',
        action: null,
        score: 0.9,
        cdata: null,
        net: networkKey('198.51.100.7'),
        reasons: [],
        ...over,
      },
      services.config.tokenKey!,
    );
  }

  function post(body: Record<string, string>) {
    return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const text = new URLSearchParams(body).toString();
      const req = http.request(
        `${server.url}/.auditcaptcha/clearance`,
        {
          method: 'POST',
          timeout: 10_000,
          headers: {
            Host: HOST,
            'Content-Type': 'application/x-www-form-urlencoded',
            'Content-Length': Buffer.byteLength(text),
            'X-Forwarded-For': '198.51.100.7',
            'User-Agent': BROWSER_UA,
          },
        },
        (res) => {
          let data = '';
          res.on('data', (c: Buffer) => (data += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
        },
      );
      req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
      req.on('error', reject);
      req.end(text);
    });
  }

  it('sets a cookie that passes, returns only to a path on the same host, and spends the token', async () => {
    const t = token();
    const res = await post({ 'ac-response': t, return: '//evil.example/x' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/');
    const cookie = res.headers['set-cookie']![0];
    expect(cookie).toMatch(
      new RegExp(`^${CLEARANCE_COOKIE}=\\d+\\.[\\w-]+; path=/; expires=[^;]+; samesite=lax; httponly$`),
    );
    const passed = await auth(server.url, { cookie: cookie.split(';')[0], accept: '*/*' });
    expect(passed.status).toBe(204);
    expect(passed.headers['x-gateway-rule']).toBe('clearance');
    const again = await post({ 'ac-response': t, return: '/docs' });
    expect(again.status).toBe(403);
    expect(again.body).toContain('already used');
    const back = await post({ 'ac-response': token(), return: '/docs/page?x=1' });
    expect(back.headers.location).toBe('/docs/page?x=1');
    for (const evil of ['https://evil.example/', '/\\evil.example', 'javascript:alert(1)'])
      expect((await post({ 'ac-response': token(), return: evil })).headers.location).toBe('/');
  });

  it('refuses a token of another host, another network, or below the site’s minimum score', async () => {
    for (const over of [{ hostname: 'elsewhere.test' }, { net: networkKey('192.0.2.1') }, { score: 0.2 }]) {
      const res = await post({ 'ac-response': token(over), return: '/' });
      expect(res.status).toBe(403);
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.body).toContain('<h1>The check did not go through</h1>');
    }
  });
});

describe('the gateway report and metrics', () => {
  it('says what each kind of visitor gets, naming the rule, and flags what a site would not want', async () => {
    const res = await request(`${server.url}/api/v1/sites/${sitekey}/gateway/report?path=/post/1&feed=/blog/feed/`, {
      key,
    });
    expect(res.status).toBe(200);
    const by = Object.fromEntries(res.body.data.checks.map((c: { persona: string }) => [c.persona, c]));
    expect(by['verified Googlebot']).toMatchObject({ outcome: 'pass', rule: 'search', ok: true });
    expect(by['Googlebot impostor']).toMatchObject({ outcome: 'challenge', ok: true });
    expect(by['feed reader']).toMatchObject({ outcome: 'pass', rule: 'feeds', ok: true });
    expect(by['link preview']).toMatchObject({ outcome: 'pass', rule: 'previews', ok: true });
    expect(by['person after the check']).toMatchObject({ outcome: 'pass', rule: 'clearance', ok: true });
    expect(by['script']).toMatchObject({ outcome: 'refuse', ok: true });
    expect(by['AI crawler']).toMatchObject({ outcome: 'deny', rule: 'ai', ok: true });
    expect(res.body.data.passed).toBe(true);
    // Link previews are allowed on a User-Agent claim alone, on every page: the report says so.
    expect(res.body.data.warnings).toEqual([expect.stringMatching(/^Rule "previews" lets any client/)]);

    // A rule that lets every script in fails the report, naming itself.
    const open = await request(`${server.url}/api/v1/sites/${sitekey}/gateway`, {
      method: 'PUT',
      key,
      json: { gateway: { hosts: [HOST], rules: [...rules, { name: 'everyone', action: 'allow' }] } },
    });
    expect(open.status).toBe(200);
    const after = await request(`${server.url}/api/v1/sites/${sitekey}/gateway/report`, { key });
    expect(after.body.data.passed).toBe(false);
    expect(after.body.data.checks.find((c: { persona: string }) => c.persona === 'script')).toMatchObject({
      outcome: 'pass',
      rule: 'everyone',
      ok: false,
    });
  });

  it('counts decisions by outcome and rule', async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toMatch(/gateway_checks_total\{outcome="deny",rule="ai"\} [1-9]/);
    expect(text).toMatch(/gateway_checks_total\{outcome="pass",rule="clearance"\} [1-9]/);
  });
});

describe('site audits of a protected host', () => {
  it('carry the gateway report for the audit’s own account only', async () => {
    const em = services.orm.em.fork();
    const owner = (await em.findOneOrFail(SiteSchema, { sitekey }, { populate: ['owner'] })).owner.id;
    const found = await gatewayFindings(em, owner, `https://${HOST}/post/1`);
    expect(found?.checks.map((c) => c.persona)).toContain('verified Googlebot');
    expect(found?.checks.find((c) => c.persona === 'AI crawler')).toMatchObject({ outcome: 'deny', rule: 'ai' });
    expect(await gatewayFindings(em, owner, 'https://unprotected.test/')).toBeNull();
    const other = await createKeyedUser(services, 'auditor');
    expect(await gatewayFindings(em, other.user.id, `https://${HOST}/post/1`)).toBeNull();
  });
});
