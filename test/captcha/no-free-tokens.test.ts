import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_IMAGE_EXTRA_BITS, SECURITY_LEVELS } from '../../src/captcha/evidence.ts';
import { createSecretKey, randomInt } from 'node:crypto';
import { openTestServices, startTestServer, type TestServer, type TestServices } from '../helpers/services.ts';
import { request } from '../helpers/http.ts';
import {
  browser,
  createTestSite,
  envAnswerFor,
  siteverify,
  solveProofAsync,
  v1EnvAnswerFor,
  PERSON_TELEMETRY,
} from '../helpers/captcha.ts';
import { deriveAnswer } from '../../src/captcha/answer.ts';
import { currentAnswer } from '../../src/captcha/v1.ts';

/**
 * Issue 10 as an attacker tries it: a plain HTTP client with perfect headers and any
 * telemetry gets no token that verifies without doing the work, on v1, v2 and v3; proofs do
 * not travel between challenges or sites and do not replay; the work rises with velocity.
 */
let services: TestServices;
let server: TestServer;
let site: { sitekey: string; secret: string };
let other: { sitekey: string; secret: string };
const ORIGIN = 'https://shop.example';
const human = { ...PERSON_TELEMETRY, time_on_page_ms: 8000, interactions: 7 };

beforeAll(async () => {
  services = await openTestServices({ env: { TRUST_PROXY: 'true', CAPTCHA_ENGINE: 'auto' } });
  server = await startTestServer(services);
  site = await createTestSite(services, [ORIGIN]);
  other = await createTestSite(services, [ORIGIN]);
});
afterAll(async () => {
  await server?.close();
  await services?.cleanup();
});

const ip = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const post = (path: string, json: unknown, from = ip()) =>
  request(`${server.url}${path}`, {
    method: 'POST',
    headers: { ...browser(ORIGIN, from), Referer: `${ORIGIN}/signup` },
    json,
  });
/** The v1 answer, read from the store with the server's key: a perfect reader of the image. */
const answerOf = async (id: string) =>
  currentAnswer(services.config.tokenKey!, id, await services.stores.challenges.get(id));

describe('no token without work', () => {
  it('v2 never passes on headers and telemetry alone', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await post('/api/v2/challenges', { sitekey: site.sitekey, telemetry: human });
      expect(res.status).toBe(201);
      expect(res.body.outcome).not.toBe('pass');
      expect(res.body).not.toHaveProperty('token');
      const unsolved = await post(`/api/v2/challenges/${res.body.challenge}/verify`, {
        work: res.body.work.ticket,
        env: '1',
        telemetry: human,
      });
      expect(unsolved.body).not.toHaveProperty('token');
    }
  });

  it('v3 answers a work challenge, never a token, without a proof', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await post('/api/v3/challenges', { sitekey: site.sitekey, action: 'signup', telemetry: human });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body)).toEqual(['challenge']);
      const forged = await post('/api/v3/challenges', {
        sitekey: site.sitekey,
        action: 'signup',
        work: 'e30.AAAA',
        solutions: '1',
      });
      expect(forged.status).toBe(422);
      expect(forged.body.errors.work).toBeDefined();
    }
  });

  it('v3 with the work but no browser environment scores at most 0.3', async () => {
    const from = ip();
    const { challenge } = (
      await post('/api/v3/challenges', { sitekey: site.sitekey, action: 'signup', telemetry: human }, from)
    ).body;
    const res = await post(
      '/api/v3/challenges',
      { sitekey: site.sitekey, action: 'signup', telemetry: human, ...(await solveProofAsync(challenge)) },
      from,
    );
    expect(res.status).toBe(201);
    // Below the site's default minimum: refused in the providers' own terms, with the reason.
    const verdict = await siteverify(server.url, { secret: site.secret, response: res.body.token });
    expect(verdict.body).toMatchObject({ success: false, 'error-codes': ['invalid-input-response'], kind: 'v3' });
    expect(verdict.body.score).toBeLessThanOrEqual(0.3);
    expect(verdict.body.reasons).toEqual(expect.arrayContaining(['no_layout_engine', 'below_site_minimum']));
  });

  it('v1 refuses even the right answer without the proof, and counts no attempt for it', async () => {
    const created = await post('/api/v1/challenges', { sitekey: site.sitekey });
    const id = created.body.challenge;
    const answer = await answerOf(id);
    const bare = await post(`/api/v1/challenges/${id}/verify`, { answer });
    expect(bare.body).toMatchObject({ success: false, error: 'invalid-proof', attempts_left: 3 });
    const right = await post(`/api/v1/challenges/${id}/verify`, {
      answer,
      ...(await solveProofAsync(created.body.work)),
      env: await v1EnvAnswerFor(services, id),
      telemetry: human,
    });
    expect(right.body).toMatchObject({ success: true, token: expect.any(String) });
    const verdict = (await siteverify(server.url, { secret: site.secret, response: right.body.token })).body;
    expect(verdict).toMatchObject({ success: true, kind: 'v1', score: 0.9 });
  });

  it('v1: the right answer and the work without the environment proof stay below the minimum', async () => {
    const created = await post('/api/v1/challenges', { sitekey: site.sitekey });
    const id = created.body.challenge;
    expect(created.body.env).toMatchObject({ probe: expect.any(Object) });
    const right = await post(`/api/v1/challenges/${id}/verify`, {
      answer: await answerOf(id),
      ...(await solveProofAsync(created.body.work)),
      telemetry: human,
    });
    expect(right.body.success).toBe(true);
    const verdict = (await siteverify(server.url, { secret: site.secret, response: right.body.token })).body;
    expect(verdict).toMatchObject({ success: false, 'error-codes': ['invalid-input-response'], score: 0.3 });
  });

  it('v1 asks for fresh work with each answer', async () => {
    const created = await post('/api/v1/challenges', { sitekey: site.sitekey });
    const id = created.body.challenge;
    const first = await solveProofAsync(created.body.work);
    const wrong = await post(`/api/v1/challenges/${id}/verify`, { answer: 'ZZZZZ', ...first });
    expect(wrong.body).toMatchObject({
      success: false,
      error: 'wrong-answer',
      attempts_left: 2,
      work: { count: expect.any(Number) },
    });
    // The spent proof does not pay for a second answer.
    const again = await post(`/api/v1/challenges/${id}/verify`, { answer: await answerOf(id), ...first });
    expect(again.body).toMatchObject({ success: false, error: 'invalid-proof', attempts_left: 2 });
    const next = await post(`/api/v1/challenges/${id}/verify`, {
      answer: await answerOf(id),
      ...(await solveProofAsync(wrong.body.work)),
    });
    expect(next.body.success).toBe(true);
  });
});

describe('a reader of the store', () => {
  it('cannot recover a v1 answer from the stored state without TOKEN_KEY', async () => {
    const id = (await post('/api/v1/challenges', { sitekey: site.sitekey })).body.challenge;
    const state = (await services.stores.challenges.get(id)) as Record<string, unknown>;
    const answer = await answerOf(id);
    // Nothing of the answer is stored: no salt, hash or sealed copy, nor the answer itself.
    for (const field of ['salt', 'answerHash', 'answerSealed', 'answer']) expect(state).not.toHaveProperty(field);
    expect(JSON.stringify(state)).not.toContain(answer);
    // No stored value, nor the id, keys the derivation that gives the answer.
    const strings = [id, ...Object.values(state).filter((v): v is string => typeof v === 'string')];
    for (const key of strings) {
      expect(deriveAnswer(createSecretKey(Buffer.from(key)), id, 0)).not.toBe(answer);
    }
  });
});

describe('proofs are bound and spent', () => {
  it('refuses a v3 proof replayed, or used for another site or action', async () => {
    const from = ip();
    const { challenge } = (await post('/api/v3/challenges', { sitekey: site.sitekey, action: 'signup' }, from)).body;
    const proof = { ...(await solveProofAsync(challenge)), env: envAnswerFor(services, challenge) };
    expect(
      (await post('/api/v3/challenges', { sitekey: other.sitekey, action: 'signup', ...proof }, from)).status,
    ).toBe(422);
    expect((await post('/api/v3/challenges', { sitekey: site.sitekey, action: 'login', ...proof }, from)).status).toBe(
      422,
    );
    expect((await post('/api/v3/challenges', { sitekey: site.sitekey, action: 'signup', ...proof }, from)).status).toBe(
      201,
    );
    expect((await post('/api/v3/challenges', { sitekey: site.sitekey, action: 'signup', ...proof }, from)).status).toBe(
      404,
    );
  });

  it('refuses a v1 proof made for another challenge, and the image proof on the no-image path', async () => {
    const a = (await post('/api/v1/challenges', { sitekey: site.sitekey })).body;
    const b = (await post('/api/v1/challenges', { sitekey: site.sitekey })).body;
    const res = await post(`/api/v1/challenges/${b.challenge}/verify`, {
      answer: await answerOf(b.challenge),
      ...(await solveProofAsync(a.work)),
    });
    expect(res.body.error).toBe('invalid-proof');
    const noImage = await post(`/api/v1/challenges/${b.challenge}/verify`, {
      no_image: true,
      ...(await solveProofAsync(b.work)),
    });
    expect(noImage.body.error).toBe('invalid-proof');
  });
});

describe('the way through without the image', () => {
  it('takes the longer proof instead of an answer and spends the challenge', async () => {
    const low = await createTestSite(services, [ORIGIN], { security_level: 'low' });
    const created = (await post('/api/v1/challenges', { sitekey: low.sitekey })).body;
    expect(created.work).toMatchObject(SECURITY_LEVELS.low);
    expect(created.no_image.count * 2 ** created.no_image.bits).toBeGreaterThanOrEqual(
      2 ** NO_IMAGE_EXTRA_BITS * created.work.count * 2 ** created.work.bits,
    );
    const res = await post(`/api/v1/challenges/${created.challenge}/verify`, {
      no_image: true,
      ...(await solveProofAsync(created.no_image)),
      env: await v1EnvAnswerFor(services, created.challenge),
      telemetry: human,
    });
    expect(res.body).toMatchObject({ success: true, token: expect.any(String) });
    // A browser that takes this path answers the environment proof: it passes the minimum.
    expect((await siteverify(server.url, { secret: low.secret, response: res.body.token })).body).toMatchObject({
      success: true,
      score: 0.9,
    });
    expect(
      (await post(`/api/v1/challenges/${created.challenge}/verify`, { no_image: true, work: 'x.y', solutions: '1' }))
        .status,
    ).toBe(404);
  });
});

describe('work rises with velocity', () => {
  const base = SECURITY_LEVELS.default.bits;
  // Its own instance without the environment proof: these cases ask for 300 challenges in a
  // row, and each would take a fresh paragraph from the reference engine, which a loaded
  // machine lays out slower than that. Only the price of the work is under test here.
  let priced: TestServices;
  let pricedServer: TestServer;
  beforeAll(async () => {
    priced = await openTestServices({ env: { TRUST_PROXY: 'true', CAPTCHA_ENGINE: 'never' } });
    pricedServer = await startTestServer(priced);
  });
  afterAll(async () => {
    await pricedServer?.close();
    await priced?.cleanup();
  });
  // Each case on a site of its own: the site's own surge raises everyone's work too.
  const bitsAfter = async (n: number, from: (i: number) => string) => {
    const fresh = await createTestSite(priced, [ORIGIN]);
    let bits = 0;
    for (let i = 0; i < n; i++) {
      const res = await request(`${pricedServer.url}/api/v3/challenges`, {
        method: 'POST',
        headers: { ...browser(ORIGIN, from(i)), Referer: `${ORIGIN}/signup` },
        json: { sitekey: fresh.sitekey, action: 'a' },
      });
      bits = res.body.challenge.bits;
    }
    return bits;
  };
  it('per address, per IPv4 /24 and per IPv6 /64', async () => {
    const calm = await bitsAfter(1, () => ip());
    expect(calm).toBe(base);
    expect(await bitsAfter(12, () => '10.200.1.1')).toBeGreaterThanOrEqual(base + 1);
    expect(await bitsAfter(30, (i) => `10.201.7.${i + 1}`)).toBeGreaterThanOrEqual(base + 2);
    expect(await bitsAfter(30, (i) => `2001:db8:42:1::${(i + 1).toString(16)}`)).toBeGreaterThanOrEqual(base + 2);
  });

  it('per IPv4 /16 and IPv6 /48, and by the site’s surge however the requests are spread', async () => {
    // A new /24 (and a new /64) each time: each network is calm; the /16, /48 and site are not.
    expect(await bitsAfter(60, (i) => `10.202.${i + 1}.1`)).toBeGreaterThanOrEqual(base + 3);
    expect(await bitsAfter(60, (i) => `2001:db8:43:${(i + 1).toString(16)}::1`)).toBeGreaterThanOrEqual(base + 3);
    // A new /16 each time: only the site's own surge is left to price it.
    expect(await bitsAfter(60, (i) => `10.${i + 1}.9.1`)).toBeGreaterThanOrEqual(base + 2);
  });
});

describe('cdata and action at the door', () => {
  it.each([['é'], ['two\nlines']])('refuses cdata %j with 422 naming the field, on every version', async (cdata) => {
    for (const [path, extra] of [
      ['/api/v1/challenges', {}],
      ['/api/v2/challenges', {}],
      ['/api/v3/challenges', { action: 'a' }],
    ] as const) {
      const res = await post(path, { sitekey: site.sitekey, cdata, ...extra });
      expect(res.status).toBe(422);
      expect(res.body.errors.cdata).toBeDefined();
    }
  });
});

describe('one rendering per answer', () => {
  it('serves the same PNG on later GETs and a new one after a regeneration', async () => {
    const created = (await post('/api/v1/challenges', { sitekey: site.sitekey })).body;
    const get = async (url: string) =>
      Buffer.from(await (await fetch(`${server.url}${url}`, { headers: browser(ORIGIN, ip()) })).arrayBuffer());
    const first = await get(created.asset_url);
    expect((await get(created.asset_url)).equals(first)).toBe(true);
    const next = (await post(`/api/v1/challenges/${created.challenge}/regenerate`, {})).body;
    expect((await get(next.asset_url)).equals(first)).toBe(false);
  });
});

describe('route limits count an IPv6 client by its /64', () => {
  it('refuses the 61st challenge a minute from 61 addresses of one /64, and not from another /64', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 61; i++)
      statuses.push(
        (await post('/api/v1/challenges', { sitekey: site.sitekey }, `2001:db8:99:1::${i.toString(16)}`)).status,
      );
    expect(statuses.slice(0, 60).every((s) => s === 201)).toBe(true);
    expect(statuses[60]).toBe(429);
    expect((await post('/api/v1/challenges', { sitekey: site.sitekey }, '2001:db8:99:2::1')).status).toBe(201);
  });
});
