/**
 * Siteverify at the providers' paths (each in its shape) and the per-site siteverify limit
 * (the spec's 120 a minute per client address by default, raised per site through the
 * sites procedures), through the real HTTP stack.
 */
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { request } from '../helpers/http.ts';
import { browser, envAnswerFor, solveProofAsync, PERSON_TELEMETRY } from '../helpers/captcha.ts';
import { createSite } from '../../src/captcha/sites.ts';
import { TEST_SECRETS } from '../helpers/test-keys.ts';

let services: TestServices;
let server: TestServer;
let key: string;
let shop: { sitekey: string; secret: string };
let busy: { sitekey: string; secret: string };

beforeAll(async () => {
  services = await openTestServices({ env: { TRUST_PROXY: 'true', CAPTCHA_ENGINE: 'auto' } });
  server = await startTestServer(services);
  const owner = await createKeyedUser(services, 'compat');
  key = owner.key;
  const em = services.orm.em.fork();
  const a = await createSite(em, owner.user.id, { name: 'Shop', origins: ['https://shop.example'] });
  const b = await createSite(em, owner.user.id, { name: 'Busy', origins: ['https://busy.example'] });
  shop = { sitekey: a.site.sitekey, secret: a.secret };
  busy = { sitekey: b.site.sitekey, secret: b.secret };
});
afterAll(async () => {
  await server?.close();
  await services?.cleanup();
});

const ip = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

/** A token as the widget earns one: the work solved and the environment answered (v3 in two steps, v2 after its work). */
async function token(kind: 'v2' | 'v3', from = ip()): Promise<string> {
  const human = { ...PERSON_TELEMETRY, time_on_page_ms: 8000, interactions: 6 };
  const fields = { sitekey: shop.sitekey, action: 'login', cdata: 'c-1', telemetry: human };
  const post = (path: string, json: object) =>
    request(`${server.url}${path}`, { method: 'POST', headers: browser('https://shop.example', from), json });
  if (kind === 'v3') {
    const { challenge } = (await post('/api/v3/challenges', fields)).body;
    const res = await post('/api/v3/challenges', {
      ...fields,
      ...(await solveProofAsync(challenge)),
      env: envAnswerFor(services, challenge),
    });
    return res.body.token;
  }
  const res = await post('/api/v2/challenges', fields);
  const { work } = res.body;
  const verified = await post(`/api/v2/challenges/${res.body.challenge}/verify`, {
    ...(await solveProofAsync(work)),
    env: envAnswerFor(services, work),
    telemetry: human,
  });
  if (!verified.body.success) throw new Error(`expected a token, got ${JSON.stringify(verified.body)}`);
  return verified.body.token;
}

const verify = (path: string, form: Record<string, string>, from = ip()) =>
  request(`${server.url}${path}`, { method: 'POST', form, headers: { 'X-Forwarded-For': from } });

describe("siteverify at the providers' paths", () => {
  it('Turnstile: our shape as it is, JSON or form', async () => {
    const res = await request(`${server.url}/turnstile/v0/siteverify`, {
      method: 'POST',
      json: { secret: shop.secret, response: await token('v3'), idempotency_key: 'k-1' },
    });
    expect(res.body).toEqual({
      success: true,
      challenge_ts: expect.any(String),
      hostname: 'shop.example',
      'error-codes': [],
      action: 'login',
      cdata: 'c-1',
      score: expect.any(Number),
      kind: 'v3',
      metadata: { reasons: ['work', 'layout_engine'] },
    });
    expect((await verify('/turnstile/v0/siteverify', { secret: shop.secret })).body).toEqual({
      success: false,
      'error-codes': ['missing-input-response'],
    });
  });

  it('reCAPTCHA: no cdata; score and action for v3 tokens only', async () => {
    const v3 = await verify('/recaptcha/api/siteverify', {
      secret: shop.secret,
      response: await token('v3', '203.0.113.4'),
      remoteip: '203.0.113.4',
    });
    expect(v3.body).toEqual({
      success: true,
      challenge_ts: expect.any(String),
      hostname: 'shop.example',
      'error-codes': [],
      score: expect.any(Number),
      action: 'login',
    });
    const v2 = await verify('/recaptcha/api/siteverify', { secret: shop.secret, response: await token('v2') });
    expect(v2.body).toEqual({
      success: true,
      challenge_ts: expect.any(String),
      hostname: 'shop.example',
      'error-codes': [],
    });
    expect((await verify('/recaptcha/api/siteverify', { secret: 'nope', response: 'x' })).body).toEqual({
      success: false,
      'error-codes': ['invalid-input-secret'],
    });
  });

  it('hCaptcha: credit false, no score or action; a spent token is invalid-or-already-seen-response', async () => {
    const t = await token('v3');
    const first = await verify('/siteverify', { secret: shop.secret, response: t, sitekey: shop.sitekey });
    expect(first.body).toEqual({
      success: true,
      challenge_ts: expect.any(String),
      hostname: 'shop.example',
      credit: false,
      'error-codes': [],
    });
    expect((await verify('/siteverify', { secret: shop.secret, response: t })).body).toEqual({
      success: false,
      'error-codes': ['invalid-or-already-seen-response'],
    });
    // One token, one redemption, whichever path: the Turnstile path now says it is spent.
    expect(
      (await verify('/turnstile/v0/siteverify', { secret: shop.secret, response: t })).body['error-codes'],
    ).toEqual(['timeout-or-duplicate']);
  });

  it('test secrets accept only dummy tokens', async () => {
    expect(
      (await verify('/siteverify', { secret: TEST_SECRETS.hcaptcha, response: '10000000-aaaa-bbbb-cccc-000000000001' }))
        .body.success,
    ).toBe(true);
    expect(
      (await verify('/siteverify', { secret: TEST_SECRETS.hcaptcha, response: await token('v3') })).body['error-codes'],
    ).toEqual(['invalid-input-response']);
    expect(
      (await verify('/recaptcha/api/siteverify', { secret: TEST_SECRETS.recaptcha, response: 'XXXX.DUMMY.TOKEN.XXXX' }))
        .body.success,
    ).toBe(true);
    expect(
      (await verify('/recaptcha/api/siteverify', { secret: TEST_SECRETS.recaptcha, response: 'anything-else' })).body[
        'error-codes'
      ],
    ).toEqual(['invalid-input-response']);
  });
});

describe('the per-site siteverify limit', () => {
  const burst = async (secret: string, n: number, from: string, path = '/api/v1/siteverify') => {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) statuses.push((await verify(path, { secret, response: 'not-a-token' }, from)).status);
    return statuses;
  };

  it("defaults to the spec's 120 a minute per address and route", { timeout: 90_000 }, async () => {
    const from = ip();
    const statuses = await burst(shop.secret, 120, from, '/turnstile/v0/siteverify');
    expect(statuses.every((s) => s === 200)).toBe(true);
    const refused = await verify('/turnstile/v0/siteverify', { secret: shop.secret, response: 'x' }, from);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ success: false, 'error-codes': ['rate-limited'] });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('120');
    // A good token sent past the limit is refused unspent: it redeems on another route (its
    // own count), once.
    const held = await token('v3');
    expect((await verify('/turnstile/v0/siteverify', { secret: shop.secret, response: held }, from)).status).toBe(429);
    const later = await verify('/api/v1/siteverify', { secret: shop.secret, response: held }, from);
    expect(later.body).toMatchObject({ success: true, action: 'login' });
    expect((await verify('/api/siteverify', { secret: shop.secret, response: held }, from)).body).toMatchObject({
      success: false,
      'error-codes': ['timeout-or-duplicate'],
    });
    // Another address, another site from the same address, or another route has its own count.
    expect((await verify('/turnstile/v0/siteverify', { secret: shop.secret, response: 'x' }, ip())).status).toBe(200);
    expect((await verify('/turnstile/v0/siteverify', { secret: busy.secret, response: 'x' }, from)).status).toBe(200);
    expect((await verify('/recaptcha/api/siteverify', { secret: shop.secret, response: 'x' }, from)).status).toBe(200);
  });

  it('is raised per site through sites.update (and shown by sites.list); null goes back to the default', async () => {
    const trpc = (path: string, input?: unknown) =>
      request(`${server.url}/trpc/${path}`, input === undefined ? { key } : { method: 'POST', key, json: input });
    const updated = await trpc('sites.update', { sitekey: busy.sitekey, siteverifyPerMinute: 300 });
    expect(updated.status).toBe(200);
    expect(updated.body.result.data.data.siteverify_per_minute).toBe(300);
    const listed = await trpc('sites.list');
    expect(
      listed.body.result.data.data.find((s: { sitekey: string }) => s.sitekey === busy.sitekey).siteverify_per_minute,
    ).toBe(300);
    expect((await trpc('sites.update', { sitekey: busy.sitekey, siteverifyPerMinute: 0 })).status).toBe(400);

    const from = ip();
    const statuses = await burst(busy.secret, 200, from);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    // An unknown secret from the same address is still held to 120.
    const unknown = await burst('sec_0000000000_' + 'x'.repeat(43), 121, from);
    expect(unknown.at(-1)).toBe(429);

    await trpc('sites.update', { sitekey: busy.sitekey, siteverifyPerMinute: null });
    expect(
      (await trpc('sites.list')).body.result.data.data.find((s: { sitekey: string }) => s.sitekey === busy.sitekey)
        .siteverify_per_minute,
    ).toBeNull();
  }, 120_000);
});
