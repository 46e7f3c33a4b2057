import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomInt } from 'node:crypto';
import { openTestServices, startTestServer, type TestServer, type TestServices } from '../helpers/services.ts';
import { request } from '../helpers/http.ts';
import {
  browser,
  createTestSite,
  envAnswerFor,
  siteverify,
  solveProofAsync,
  PERSON_TELEMETRY,
} from '../helpers/captcha.ts';
import { TEST_ANSWER } from '../../src/captcha/test-keys.ts';
import { TEST_SITEKEYS } from '../helpers/test-keys.ts';

let services: TestServices;
let server: TestServer;
let site: { sitekey: string; secret: string };
let wild: { sitekey: string; secret: string };
const ORIGIN = 'https://shop.example';

beforeAll(async () => {
  services = await openTestServices({ env: { TRUST_PROXY: 'true', CAPTCHA_ENGINE: 'auto' } });
  server = await startTestServer(services);
  site = await createTestSite(services, [ORIGIN, 'http://localhost:8080']);
  wild = await createTestSite(services, ['https://*.example.org']);
});
afterAll(async () => {
  await server?.close();
  await services?.cleanup();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A fresh client address per call, so risk rates and limits of one test do not leak into another. */
const ip = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
/** `origin` null sends no Origin header at all. */
const post = (path: string, json: unknown, origin: string | null = ORIGIN, from = ip()) =>
  request(`${server.url}${path}`, { method: 'POST', headers: browser(origin ?? undefined, from), json });

describe('origin rule and CORS', () => {
  it('accepts a registered origin and answers with CORS headers', async () => {
    const res = await post('/api/v1/challenges', { sitekey: site.sitekey });
    expect(res.status).toBe(201);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('vary')).toMatch(/Origin/);
    expect(res.headers.get('set-cookie')).toBeNull();
    const other = await post('/api/v1/challenges', { sitekey: site.sitekey }, 'http://localhost:8080');
    expect(other.status).toBe(201);
  });

  it.each([
    ['missing', null],
    ['foreign', 'https://evil.example'],
    ['same host, other scheme', 'http://shop.example'],
    ['same host, other port', 'https://shop.example:8443'],
    ['opaque', 'null'],
    // Longer than DNS allows: no browser sends it, and no token could carry its hostname.
    ['over-long', `https://${'a'.repeat(600)}`],
    ['with an over-long label', `https://${'a'.repeat(64)}.example`],
  ])('refuses a %s origin with 403 and no CORS grant', async (_name, origin) => {
    const res = await post('/api/v1/challenges', { sitekey: site.sitekey }, origin);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ code: 'ERR_ORIGIN_NOT_ALLOWED', message: expect.any(String), status: 403 });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses an over-long origin on a test sitekey too (which takes any other origin)', async () => {
    const long = `https://${'a'.repeat(600)}`;
    const res = await post('/api/v3/challenges', { sitekey: TEST_SITEKEYS.block, action: 'x' }, long);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ code: 'ERR_ORIGIN_NOT_ALLOWED', message: expect.any(String), status: 403 });
    const fits = `https://${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    expect((await post('/api/v3/challenges', { sitekey: TEST_SITEKEYS.block, action: 'x' }, fits)).status).toBe(201);
  });

  it('refuses an unknown sitekey the same way as a foreign origin', async () => {
    const res = await post('/api/v3/challenges', { sitekey: 'sk_nope', action: 'x' });
    expect(res.status).toBe(403);
  });

  it('matches wildcard origins on subdomains only, with the same scheme', async () => {
    for (const origin of ['https://a.example.org', 'https://deep.a.example.org']) {
      expect((await post('/api/v1/challenges', { sitekey: wild.sitekey }, origin)).status, origin).toBe(201);
    }
    for (const origin of [
      'https://example.org',
      'http://a.example.org',
      'https://a.example.org.evil.com',
      'https://aexample.org',
    ]) {
      expect((await post('/api/v1/challenges', { sitekey: wild.sitekey }, origin)).status, origin).toBe(403);
    }
  });

  it('checks the origin of the challenge’s site on routes for an existing challenge', async () => {
    const created = await post('/api/v1/challenges', { sitekey: site.sitekey });
    const id = created.body.challenge;
    const foreign = 'https://evil.example';
    expect(
      (await fetch(`${server.url}/api/v1/challenges/${id}/asset`, { headers: browser(foreign, ip()) })).status,
    ).toBe(403);
    expect((await post(`/api/v1/challenges/${id}/verify`, { answer: 'AAAAA' }, foreign)).status).toBe(403);
    expect((await post(`/api/v1/challenges/${id}/regenerate`, {}, foreign)).status).toBe(403);
    expect((await post(`/api/v1/challenges/${id}/verify`, { answer: 'AAAAA' }, null)).status).toBe(403);
  });

  it('answers preflights for every browser route', async () => {
    for (const path of [
      '/api/v1/challenges',
      '/api/v1/challenges/x/verify',
      '/api/v1/challenges/x/asset',
      '/api/v2/challenges',
      '/api/v3/challenges',
    ]) {
      const res = await fetch(`${server.url}${path}`, {
        method: 'OPTIONS',
        headers: {
          Origin: ORIGIN,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type',
        },
      });
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(res.headers.get('access-control-allow-headers')).toMatch(/Content-Type/i);
      expect(res.headers.get('access-control-allow-methods')).toMatch(/OPTIONS/);
    }
  });

  it('answers 422 for bad input and 415 for other content types', async () => {
    expect((await post('/api/v1/challenges', {})).status).toBe(422);
    expect((await post('/api/v3/challenges', { sitekey: site.sitekey })).body.errors.action).toBeDefined();
    expect((await post('/api/v3/challenges', { sitekey: site.sitekey, action: 'bad action!' })).status).toBe(422);
    const res = await fetch(`${server.url}/api/v1/challenges`, {
      method: 'POST',
      headers: { ...browser(ORIGIN, ip()), 'Content-Type': 'text/plain' },
      body: 'sitekey=x',
    });
    expect(res.status).toBe(415);
  });
});

describe('v1 explicit challenge', () => {
  it('serves a PNG asset that is never cached', async () => {
    const created = await post('/api/v1/challenges', { sitekey: site.sitekey });
    expect(created.body).toMatchObject({ kind: 'v1', attempts_left: 3, regenerations_left: 5 });
    const res = await fetch(`${server.url}${created.body.asset_url}`, { headers: browser(ORIGIN, ip()) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const png = Buffer.from(await res.arrayBuffer());
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  });

  it('issues a token for the right answer (case-insensitive), once', async () => {
    const created = await post('/api/v1/challenges', {
      sitekey: TEST_SITEKEYS.pass,
      action: 'signup',
      cdata: 'order-7',
    });
    const id = created.body.challenge;
    const right = await post(`/api/v1/challenges/${id}/verify`, { answer: TEST_ANSWER.toLowerCase() });
    expect(right.status).toBe(200);
    expect(right.body).toEqual({ success: true, token: expect.any(String), expires_at: expect.any(String) });
    // The challenge is spent: it cannot give a second token.
    expect((await post(`/api/v1/challenges/${id}/verify`, { answer: TEST_ANSWER })).status).toBe(404);
  });

  it('counts wrong answers and spends the challenge after three', async () => {
    const id = (await post('/api/v1/challenges', { sitekey: TEST_SITEKEYS.pass })).body.challenge;
    const first = await post(`/api/v1/challenges/${id}/verify`, { answer: 'WRONG' });
    expect(first.body).toEqual({ success: false, error: 'wrong-answer', attempts_left: 2 });
    expect((await post(`/api/v1/challenges/${id}/verify`, { answer: 'WRONG' })).body.attempts_left).toBe(1);
    expect((await post(`/api/v1/challenges/${id}/verify`, { answer: 'WRONG' })).body).toEqual({
      success: false,
      error: 'challenge-spent',
      attempts_left: 0,
    });
    expect((await post(`/api/v1/challenges/${id}/verify`, { answer: TEST_ANSWER })).status).toBe(404);
  });

  it('never lets parallel guesses exceed the attempt limit', async () => {
    const id = (await post('/api/v1/challenges', { sitekey: TEST_SITEKEYS.pass })).body.challenge;
    const answers = [...Array.from({ length: 11 }, () => 'WRONG'), TEST_ANSWER];
    const results = await Promise.all(answers.map((answer) => post(`/api/v1/challenges/${id}/verify`, { answer })));
    const counted = results.filter((r) => r.status === 200 && (r.body.success || r.body.error === 'wrong-answer'));
    expect(counted.length).toBeLessThanOrEqual(3);
    expect(results.filter((r) => r.body.success === true).length).toBeLessThanOrEqual(1);
  });

  it('regenerates at most five times, with a new answer each time', async () => {
    const created = await post('/api/v1/challenges', { sitekey: site.sitekey });
    const id = created.body.challenge;
    const assets = new Set<string>();
    for (let i = 1; i <= 5; i++) {
      const res = await post(`/api/v1/challenges/${id}/regenerate`, {});
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ challenge: id, regenerations_left: 5 - i, attempts_left: 3 });
      assets.add(res.body.asset_url);
    }
    expect(assets.size).toBe(5);
    const refused = await post(`/api/v1/challenges/${id}/regenerate`, {});
    expect(refused.status).toBe(422);
    expect(refused.body.errors.challenge).toBeDefined();
  });

  it('expires after ten minutes', async () => {
    const id = (await post('/api/v1/challenges', { sitekey: TEST_SITEKEYS.pass })).body.challenge;
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 10 * 60_000 + 1000);
    expect((await post(`/api/v1/challenges/${id}/verify`, { answer: TEST_ANSWER })).status).toBe(404);
    expect(
      (await fetch(`${server.url}/api/v1/challenges/${id}/asset`, { headers: browser(ORIGIN, ip()) })).status,
    ).toBe(404);
  });

  it('answers 404 for an unknown challenge', async () => {
    expect((await post('/api/v1/challenges/nope/verify', { answer: 'X' })).status).toBe(404);
    expect((await post('/api/v1/challenges/nope/regenerate', {})).status).toBe(404);
  });
});

describe('v2 managed challenge', () => {
  const human = { ...PERSON_TELEMETRY, time_on_page_ms: 8000, interactions: 6 };

  it('asks even an ordinary browser for work, and passes it after the work and the environment proof', async () => {
    const from = ip();
    const res = await post(
      '/api/v2/challenges',
      { sitekey: site.sitekey, action: 'login', telemetry: human },
      ORIGIN,
      from,
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      outcome: 'pow',
      challenge: expect.any(String),
      work: { count: 8, bits: 9, env: { probe: { s: expect.any(Object), c: expect.any(Array) } } },
    });
    const { work } = res.body;
    const proof = { ...(await solveProofAsync(work)), env: envAnswerFor(services, work), telemetry: human };
    const right = await post(`/api/v2/challenges/${res.body.challenge}/verify`, proof, ORIGIN, from);
    expect(right.body).toEqual({ success: true, token: expect.any(String), expires_at: expect.any(String) });
    // A reused proof finds no challenge.
    expect((await post(`/api/v2/challenges/${res.body.challenge}/verify`, proof, ORIGIN, from)).status).toBe(404);
    const verdict = await siteverify(server.url, { secret: site.secret, response: right.body.token });
    expect(verdict.body).toMatchObject({ success: true, action: 'login', hostname: 'shop.example', kind: 'v2' });
    // The managed flow's score is told to the site for v2 tokens too.
    expect(verdict.body.score).toBeGreaterThanOrEqual(0.5);
  });

  it('refuses a wrong proof and a stale one', async () => {
    const res = await post('/api/v2/challenges', { sitekey: site.sitekey, telemetry: human });
    const { work } = res.body;
    const wrong = await post(`/api/v2/challenges/${work.id}/verify`, {
      work: work.ticket,
      solutions: Array(work.count).fill('0').join(','),
      env: '1',
    });
    expect(wrong.body).toEqual({ success: false, error: 'invalid-proof', attempts_left: 0 });
    const proof = { ...(await solveProofAsync(work)), env: envAnswerFor(services, work) };
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 4 * 60_000);
    expect((await post(`/api/v2/challenges/${work.id}/verify`, proof)).status).toBe(404);
  });

  it('sends a client without a browser environment to the image after its work', async () => {
    const res = await post('/api/v2/challenges', { sitekey: site.sitekey, telemetry: human });
    const verdict = await post(`/api/v2/challenges/${res.body.challenge}/verify`, {
      ...(await solveProofAsync(res.body.work)),
      env: '12345',
    });
    expect(verdict.body).toMatchObject({
      success: false,
      error: 'challenge-required',
      challenge: { kind: 'v1', work: null },
    });
  });

  it('escalates an automated client to an image challenge that needs work', async () => {
    const res = await post('/api/v2/challenges', {
      sitekey: site.sitekey,
      telemetry: { webdriver: true, time_on_page_ms: 100, interactions: 0 },
    });
    expect(res.body.outcome).toBe('challenge');
    expect(res.body.challenge).toMatchObject({
      kind: 'v1',
      attempts_left: 3,
      asset_url: expect.stringContaining('/asset'),
      work: { count: 8 },
    });
  });

  it('follows the test sitekeys', async () => {
    expect(
      (await post('/api/v2/challenges', { sitekey: TEST_SITEKEYS.pass }, 'https://anything.test')).body.outcome,
    ).toBe('pass');
    const forced = await post('/api/v2/challenges', { sitekey: TEST_SITEKEYS.interactive }, 'https://anything.test');
    expect(forced.body.outcome).toBe('challenge');
    const solved = await post(
      `/api/v1/challenges/${forced.body.challenge.challenge}/verify`,
      { answer: TEST_ANSWER },
      'https://anything.test',
    );
    expect(solved.body.success).toBe(true);
    const blocked = await post('/api/v2/challenges', { sitekey: TEST_SITEKEYS.block }, 'https://anything.test');
    expect(blocked.body.outcome).toBe('challenge');
    const never = await post(
      `/api/v1/challenges/${blocked.body.challenge.challenge}/verify`,
      { answer: TEST_ANSWER },
      'https://anything.test',
    );
    expect(never.body.success).toBe(false);
  });
});

describe('v3 score token', () => {
  const v3 = async (
    telemetry: object,
    env: (work: { ticket: string }) => string = (work) => envAnswerFor(services, work),
  ) => {
    const from = ip();
    const first = await post(
      '/api/v3/challenges',
      { sitekey: site.sitekey, action: 'checkout', telemetry },
      ORIGIN,
      from,
    );
    expect(first.status).toBe(201);
    expect(Object.keys(first.body)).toEqual(['challenge']);
    const { challenge } = first.body;
    return post(
      '/api/v3/challenges',
      {
        sitekey: site.sitekey,
        action: 'checkout',
        telemetry,
        ...(await solveProofAsync(challenge)),
        env: env(challenge),
      },
      ORIGIN,
      from,
    );
  };

  it('returns only an opaque token after the work; siteverify reveals the score and action', async () => {
    const res = await v3({ ...PERSON_TELEMETRY, interactions: 4, time_on_page_ms: 9000 });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['expires_at', 'token']);
    expect(res.text).not.toMatch(/score/i);
    const verdict = await siteverify(server.url, { secret: site.secret, response: res.body.token });
    expect(verdict.body).toMatchObject({
      success: true,
      action: 'checkout',
      hostname: 'shop.example',
      'error-codes': [],
    });
    expect(verdict.body.score).toBeGreaterThanOrEqual(0.7);
  });

  it('scores an automated client, and one without a browser environment, at most 0.3', async () => {
    const driven = await v3({ webdriver: true });
    expect(
      (await siteverify(server.url, { secret: site.secret, response: driven.body.token })).body.score,
    ).toBeLessThanOrEqual(0.3);
    const noEnv = await v3({ ...PERSON_TELEMETRY, interactions: 9, time_on_page_ms: 9000 }, () => '0');
    expect(
      (await siteverify(server.url, { secret: site.secret, response: noEnv.body.token })).body.score,
    ).toBeLessThanOrEqual(0.3);
  });
});

describe('same-origin pages', () => {
  it('treats a same-origin request without Origin as coming from the service’s own origin', async () => {
    const own = await createTestSite(services, [server.url]);
    const created = await post('/api/v1/challenges', { sitekey: own.sitekey }, server.url);
    expect(created.status).toBe(201);
    const headers = { ...browser(undefined, ip()), 'Sec-Fetch-Site': 'same-origin' };
    expect((await fetch(`${server.url}${created.body.asset_url}`, { headers })).status).toBe(200);
    const crossSite = { ...browser(undefined, ip()), 'Sec-Fetch-Site': 'cross-site' };
    expect((await fetch(`${server.url}${created.body.asset_url}`, { headers: crossSite })).status).toBe(403);
  });
});

describe('client addresses behind a proxy', () => {
  it('counts the address the proxy appended, not one the client wrote', async () => {
    // A client that writes its own X-Forwarded-For entry cannot escape its limit: the proxy
    // appends the real address last, and that is the one counted.
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) {
      const res = await request(`${server.url}/api/v1/challenges`, {
        method: 'POST',
        headers: { ...browser(ORIGIN), 'X-Forwarded-For': `172.16.${i}.1, 192.0.2.250` },
        json: { sitekey: site.sitekey },
      });
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 60).every((s) => s === 201)).toBe(true);
    expect(statuses[60]).toBe(429);
  });
});
