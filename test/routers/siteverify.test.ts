import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomInt } from 'node:crypto';
import {
  openTestServices,
  startTestServer,
  TEST_REDIS_URL,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { request } from '../helpers/http.ts';
import { browser, createTestSite, siteverify, v3Token } from '../helpers/captcha.ts';
import { TEST_SECRETS, TEST_SITEKEYS } from '../helpers/test-keys.ts';
import { openToken, sealToken } from '../../src/captcha/tokens.ts';
import { updateSite } from '../../src/captcha/sites.ts';

let services: TestServices;
let server: TestServer;
let shop: { sitekey: string; secret: string };
let blog: { sitekey: string; secret: string };

beforeAll(async () => {
  services = await openTestServices({ env: { TRUST_PROXY: 'true', CAPTCHA_ENGINE: 'auto' } });
  server = await startTestServer(services);
  shop = await createTestSite(services, ['https://shop.example']);
  blog = await createTestSite(services, ['https://blog.example']);
});
afterAll(async () => {
  await server?.close();
  await services?.cleanup();
});
afterEach(() => {
  vi.useRealTimers();
});

const ip = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

/** A fresh v3 token for the shop, through the real browser route. */
async function token(
  sitekey = shop.sitekey,
  origin = 'https://shop.example',
  action = 'login',
  from = ip(),
): Promise<string> {
  const res = await v3Token(server.url, {
    sitekey,
    origin,
    ip: from,
    action,
    cdata: 'session-42',
    tokenKey: services.config.tokenKey,
  });
  expect(res.status).toBe(201);
  return res.body.token;
}

describe('siteverify', () => {
  it('answers in the Turnstile/reCAPTCHA shape on both paths, JSON or form', async () => {
    const viaJson = await siteverify(server.url, { secret: shop.secret, response: await token() }, '/api/siteverify');
    expect(viaJson.status).toBe(200);
    expect(viaJson.body).toEqual({
      success: true,
      challenge_ts: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      hostname: 'shop.example',
      'error-codes': [],
      action: 'login',
      cdata: 'session-42',
      score: expect.any(Number),
      kind: 'v3',
      reasons: ['work', 'layout_engine'],
    });
    const viaForm = await request(`${server.url}/api/v1/siteverify`, {
      method: 'POST',
      form: {
        secret: shop.secret,
        response: await token(undefined, undefined, undefined, '203.0.113.9'),
        remoteip: '203.0.113.9',
      },
    });
    expect(viaForm.body.success).toBe(true);
  });

  describe('remoteip: a token is bound to the network it was solved from', () => {
    it('refuses a token solved on another network, without spending it; the same /24 passes', async () => {
      const t = await token(undefined, undefined, undefined, '198.51.100.20');
      const relayed = await siteverify(server.url, { secret: shop.secret, response: t, remoteip: '203.0.113.20' });
      expect(relayed.body).toEqual({ success: false, 'error-codes': ['remoteip-mismatch'] });
      const sameNetwork = await siteverify(server.url, {
        secret: shop.secret,
        response: t,
        remoteip: '198.51.100.250',
      });
      expect(sameNetwork.body).toMatchObject({ success: true, kind: 'v3' });
      // A remoteip that is not one address is a malformed call, on every path: ignoring it would
      // turn the binding off. The token stays unspent.
      const t2 = await token(undefined, undefined, undefined, '198.51.100.20');
      for (const remoteip of ['unknown', '198.51.100.20, 203.0.113.5', '198.51.100.20:443']) {
        for (const path of [
          '/api/v1/siteverify',
          '/turnstile/v0/siteverify',
          '/recaptcha/api/siteverify',
          '/siteverify',
        ]) {
          const malformed = await siteverify(server.url, { secret: shop.secret, response: t2, remoteip }, path);
          expect(malformed.body, `${path} ${remoteip}`).toEqual({ success: false, 'error-codes': ['bad-request'] });
        }
      }
      // Nothing to check without a remoteip.
      expect((await siteverify(server.url, { secret: shop.secret, response: t2 })).body.success).toBe(true);
    });

    it('compares IPv6 visitors by their /64, IPv4-mapped addresses as IPv4', async () => {
      const t = await token(undefined, undefined, undefined, '2001:db8:5:6::10');
      const other = await siteverify(server.url, { secret: shop.secret, response: t, remoteip: '2001:db8:5:7::10' });
      expect(other.body['error-codes']).toEqual(['remoteip-mismatch']);
      const same = await siteverify(server.url, { secret: shop.secret, response: t, remoteip: '2001:db8:5:6:ffff::1' });
      expect(same.body.success, JSON.stringify(same.body)).toBe(true);
      const v4 = await token(undefined, undefined, undefined, '192.0.2.44');
      const mapped = await siteverify(server.url, { secret: shop.secret, response: v4, remoteip: '::ffff:192.0.2.1' });
      expect(mapped.body.success).toBe(true);
    });

    it('a site may relax the check to a low score, or turn it off', async () => {
      const relaxed = await createTestSite(services, ['https://relaxed.example'], { remoteip_check: 'score' });
      const off = await createTestSite(services, ['https://off.example'], { remoteip_check: 'off' });
      const t1 = await token(relaxed.sitekey, 'https://relaxed.example', 'login', '198.51.100.30');
      const scored = await siteverify(server.url, { secret: relaxed.secret, response: t1, remoteip: '203.0.113.30' });
      expect(scored.body).toMatchObject({ success: true, score: 0.1, kind: 'v3' });
      const t2 = await token(off.sitekey, 'https://off.example', 'login', '198.51.100.31');
      const ignored = await siteverify(server.url, { secret: off.secret, response: t2, remoteip: '203.0.113.31' });
      expect(ignored.body.success).toBe(true);
      expect(ignored.body.score).toBeGreaterThan(0.5);
    });
  });

  it('redeems a token once; a replay is timeout-or-duplicate', async () => {
    const t = await token();
    expect((await siteverify(server.url, { secret: shop.secret, response: t })).body.success).toBe(true);
    const replay = await siteverify(server.url, { secret: shop.secret, response: t }, '/api/siteverify');
    expect(replay.body).toEqual({ success: false, 'error-codes': ['timeout-or-duplicate'] });
  });

  it.each([
    ['no secret', () => ({ response: 'x' }), ['missing-input-secret']],
    ['nothing', () => ({}), ['missing-input-secret', 'missing-input-response']],
    ['no response', () => ({ secret: shop.secret }), ['missing-input-response']],
    [
      'an unknown secret',
      () => ({ secret: 'sec_0000000000_' + 'A'.repeat(43), response: 'x' }),
      ['invalid-input-secret'],
    ],
    ['a garbage secret', () => ({ secret: 'hunter2', response: 'x' }), ['invalid-input-secret']],
    ['a garbage response', () => ({ secret: shop.secret, response: 'not-a-token' }), ['invalid-input-response']],
    ['an oversized response', () => ({ secret: shop.secret, response: 'A'.repeat(3000) }), ['invalid-input-response']],
  ])('answers %s with its error code', async (_name, body, codes) => {
    const res = await siteverify(server.url, body());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: false, 'error-codes': codes });
  });

  it('refuses tampered and truncated tokens', async () => {
    const t = await token();
    const flipped = t.slice(0, 20) + (t[20] === 'A' ? 'B' : 'A') + t.slice(21);
    for (const bad of [flipped, t.slice(0, -4), t.slice(0, 30), t + 'A']) {
      expect((await siteverify(server.url, { secret: shop.secret, response: bad })).body['error-codes']).toEqual([
        'invalid-input-response',
      ]);
    }
    // The untouched token still works: refusals do not spend it.
    expect((await siteverify(server.url, { secret: shop.secret, response: t })).body.success).toBe(true);
  });

  it('refuses a token of another site, and a sitekey that does not match', async () => {
    const foreign = await siteverify(server.url, { secret: blog.secret, response: await token() });
    expect(foreign.body['error-codes']).toEqual(['invalid-input-response']);
    const mismatch = await siteverify(server.url, {
      secret: shop.secret,
      response: await token(),
      sitekey: blog.sitekey,
    });
    expect(mismatch.body['error-codes']).toEqual(['invalid-input-response']);
    const matching = await siteverify(server.url, {
      secret: shop.secret,
      response: await token(),
      sitekey: shop.sitekey,
    });
    expect(matching.body.success).toBe(true);
  });

  it('refuses a token sealed under another key', async () => {
    const t = await token();
    const opened = openToken(t, services.config.tokenKey!);
    expect(opened.ok).toBe(true);
    if (!opened.ok) return;
    const forged = sealToken(opened.claims, Buffer.alloc(32, 1));
    expect((await siteverify(server.url, { secret: shop.secret, response: forged })).body['error-codes']).toEqual([
      'invalid-input-response',
    ]);
  });

  it('refuses an expired token (older than 300 s)', async () => {
    const t = await token();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 301_000);
    expect((await siteverify(server.url, { secret: shop.secret, response: t })).body['error-codes']).toEqual([
      'timeout-or-duplicate',
    ]);
  });

  it('repeats the first verdict for a retry with the same idempotency key', async () => {
    const t = await token();
    const first = await siteverify(server.url, { secret: shop.secret, response: t, idempotency_key: 'retry-1' });
    const retry = await siteverify(server.url, { secret: shop.secret, response: t, idempotency_key: 'retry-1' });
    expect(first.body.success, JSON.stringify(first.body)).toBe(true);
    expect(retry.body).toEqual(first.body);
    const otherKey = await siteverify(server.url, { secret: shop.secret, response: t, idempotency_key: 'retry-2' });
    expect(otherKey.body['error-codes']).toEqual(['timeout-or-duplicate']);
    const noKey = await siteverify(server.url, { secret: shop.secret, response: t });
    expect(noKey.body['error-codes']).toEqual(['timeout-or-duplicate']);
  });

  it('answers bad-request for a malformed or mistyped body, never 4xx or 5xx', async () => {
    const malformed = await request(`${server.url}/api/v1/siteverify`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"secret":',
    });
    expect(malformed.status).toBe(200);
    expect(malformed.body).toEqual({ success: false, 'error-codes': ['bad-request'] });
    const mistyped = await request(`${server.url}/api/v1/siteverify`, {
      method: 'POST',
      json: { secret: ['a'], response: { x: 1 } },
    });
    expect(mistyped.body).toEqual({ success: false, 'error-codes': ['bad-request'] });
    const wrongType = await request(`${server.url}/api/v1/siteverify`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/xml' },
      body: '<x/>',
    });
    expect(wrongType.body).toEqual({ success: false, 'error-codes': ['bad-request'] });
  });

  it('runs 50 concurrent redemptions of one token to exactly one success', async () => {
    const t = await token();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => siteverify(server.url, { secret: shop.secret, response: t })),
    );
    expect(results.filter((r) => r.body.success === true)).toHaveLength(1);
    expect(results.filter((r) => r.body['error-codes']?.[0] === 'timeout-or-duplicate')).toHaveLength(49);
    expect(services.stores.kind).toBe(TEST_REDIS_URL ? 'redis' : 'memory');
  });
});

describe('test keys', () => {
  it('answers by test secret whatever the response', async () => {
    expect(
      (await siteverify(server.url, { secret: TEST_SECRETS.pass, response: 'XXXX.DUMMY.TOKEN.XXXX' })).body,
    ).toMatchObject({ success: true, 'error-codes': [] });
    expect(
      (await siteverify(server.url, { secret: TEST_SECRETS.fail, response: 'anything' })).body['error-codes'],
    ).toEqual(['invalid-input-response']);
    expect(
      (await siteverify(server.url, { secret: TEST_SECRETS.spent, response: 'anything' })).body['error-codes'],
    ).toEqual(['timeout-or-duplicate']);
  });

  it('issues tokens on any origin for test sitekeys; v3 scores 0.9 (pass) and 0 (block)', async () => {
    const passing = await token(TEST_SITEKEYS.pass, 'http://localhost:5173');
    const blocked = await token(TEST_SITEKEYS.block, 'http://localhost:5173');
    // Tokens of test sitekeys belong to no real site: a real secret refuses them.
    expect((await siteverify(server.url, { secret: shop.secret, response: passing })).body['error-codes']).toEqual([
      'invalid-input-response',
    ]);
    const key = services.config.tokenKey!;
    const p = openToken(passing, key);
    const b = openToken(blocked, key);
    expect(p.ok && p.claims.score).toBe(0.9);
    expect(b.ok && b.claims.score).toBe(0);
  });

  it('test sitekeys 4x…NN pass with the score 0.NN, which a test secret shows', async () => {
    for (const [sitekey, score] of [
      ['4x0000000000000000000030', 0.3],
      ['4x0000000000000000000075', 0.75],
      ['4x0000000000000000000000', 0],
    ] as const) {
      const t = await token(sitekey, 'http://localhost:5173');
      const verdict = await siteverify(server.url, { secret: TEST_SECRETS.pass, response: t });
      expect(verdict.body).toMatchObject({ success: true, score, kind: 'v3' });
      // v2 passes at once, with the chosen score.
      const managed = await request(`${server.url}/api/v2/challenges`, {
        method: 'POST',
        headers: browser('http://localhost:5173'),
        json: { sitekey },
      });
      expect(managed.body.outcome).toBe('pass');
      expect(
        (await siteverify(server.url, { secret: TEST_SECRETS.pass, response: managed.body.token })).body,
      ).toMatchObject({
        success: true,
        score,
        kind: 'v2',
      });
    }
    // Not a test key: a sitekey of another length or with letters.
    const other = await request(`${server.url}/api/v3/challenges`, {
      method: 'POST',
      headers: browser('http://localhost:5173'),
      json: { sitekey: '4x00000000000000000000AB', action: 'x' },
    });
    expect(other.status).toBe(403);
  });

  it('applies the site’s minimum score at once when it changes, on every path', async () => {
    const site = await createTestSite(services, ['https://min.example']);
    const weak = async () => {
      // The work and telemetry, but no environment answer: 0.3.
      const res = await v3Token(server.url, { sitekey: site.sitekey, origin: 'https://min.example', ip: ip() });
      expect(res.status).toBe(201);
      return res.body.token as string;
    };
    const paths = [
      '/api/v1/siteverify',
      '/api/siteverify',
      '/turnstile/v0/siteverify',
      '/recaptcha/api/siteverify',
      '/siteverify',
    ];
    for (const path of paths) {
      const refused = await siteverify(server.url, { secret: site.secret, response: await weak() }, path);
      expect(refused.body, path).toMatchObject({ success: false, 'error-codes': ['invalid-input-response'] });
    }
    const em = services.orm.em.fork();
    await updateSite(em, site.ownerId, site.sitekey, { min_score: 0.3 });
    for (const path of paths) {
      const passed = await siteverify(server.url, { secret: site.secret, response: await weak() }, path);
      expect(passed.body, path).toMatchObject({ success: true });
    }
    await updateSite(em, site.ownerId, site.sitekey, { min_score: 0.95 });
    const person = await siteverify(server.url, {
      secret: site.secret,
      response: await token(site.sitekey, 'https://min.example'),
    });
    expect(person.body).toMatchObject({ success: false, score: 0.9 });
    expect(person.body.reasons).toContain('below_site_minimum');
  });
});
