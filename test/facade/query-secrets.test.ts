import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../helpers/http.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { createSite } from '../../src/captcha/sites.ts';
import { browser, envAnswerFor, solveProof, PERSON_TELEMETRY } from '../helpers/captcha.ts';

let services: TestServices;
let server: TestServer;
let key: string;
let site: { sitekey: string; secret: string };
const origin = 'https://shop.example';
/** Every path siteverify answers on: ours, then Turnstile's, reCAPTCHA's and hCaptcha's. */
const siteverifyPaths = [
  '/api/siteverify',
  '/api/v1/siteverify',
  '/turnstile/v0/siteverify',
  '/recaptcha/api/siteverify',
  '/siteverify',
];

beforeAll(async () => {
  services = await openTestServices({ env: { CAPTCHA_ENGINE: 'auto' } });
  server = await startTestServer(services);
  const keyed = await createKeyedUser(services, 'query');
  key = keyed.key;
  const made = await createSite(services.orm.em.fork(), keyed.user.id, { name: 'Shop', origins: [origin] });
  site = { sitekey: made.site.sitekey, secret: made.secret };
});
afterAll(async () => {
  await server?.close();
  await services?.cleanup();
});

/** A v3 token through the real browser route: a work challenge, then its proof. */
async function v3Token(): Promise<string> {
  const ask = (extra: Record<string, string> = {}) =>
    request(`${server.url}/api/v3/challenges`, {
      method: 'POST',
      headers: browser(origin),
      json: { sitekey: site.sitekey, action: 'checkout', telemetry: PERSON_TELEMETRY, ...extra },
    });
  const { challenge } = (await ask()).body;
  const issued = await ask({ ...solveProof(challenge), env: envAnswerFor(services, challenge) });
  expect(issued.status).toBe(201);
  return issued.body.token;
}

describe('secrets are taken from the body only, never the query string', () => {
  it('siteverify refuses secret and response in the query (bad-request) and the token stays unspent', async () => {
    const token = await v3Token();
    for (const path of siteverifyPaths) {
      const qs = new URLSearchParams({ secret: site.secret, response: token }).toString();
      const bare = await request(`${server.url}${path}?${qs}`, { method: 'POST' });
      expect(bare.status).toBe(200);
      expect(bare.body).toEqual({ success: false, 'error-codes': ['bad-request'] });
      // Even beside a complete body: the query string is refused, not ignored.
      const mixed = await request(`${server.url}${path}?secret=${encodeURIComponent(site.secret)}`, {
        method: 'POST',
        form: { secret: site.secret, response: token },
      });
      expect(mixed.body).toEqual({ success: false, 'error-codes': ['bad-request'] });
    }
    const redeemed = await request(`${server.url}/api/v1/siteverify`, {
      method: 'POST',
      form: { secret: site.secret, response: token },
    });
    expect(redeemed.body, JSON.stringify(redeemed.body)).toMatchObject({ success: true, 'error-codes': [] });
  });

  it('POST and PUT report routes answer 400 naming the fields sent in the query', async () => {
    const created = await request(
      `${server.url}/api/v1/reports?url=${encodeURIComponent('http://127.0.0.1:1/')}&privacy=2&password=hunter2`,
      { method: 'POST', key },
    );
    expect(created.status).toBe(400);
    expect(created.body).toMatchObject({
      status: 400,
      message: expect.stringContaining('not the query string'),
      errors: { url: [expect.any(String)], privacy: [expect.any(String)], password: [expect.any(String)] },
    });
    expect(created.text).not.toContain('hunter2');

    const updated = await request(`${server.url}/api/v1/reports/1?password=hunter2`, {
      method: 'PUT',
      key,
      form: { privacy: '2' },
    });
    expect(updated.status).toBe(400);
    expect(updated.body.errors).toEqual({ password: ['Send this field in the request body, not the query string.'] });
  });

  it('GET routes still take their parameters from the query', async () => {
    const listed = await request(`${server.url}/api/v1/reports?per_page=10&sort=asc`, { key });
    expect(listed.status).toBe(200);
    expect(listed.body.meta.per_page).toBe(10);
  });
});

describe('the siteverify paths', () => {
  it('answer any other method with 405, Allow: POST, in the error shape', async () => {
    for (const path of siteverifyPaths) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await request(`${server.url}${path}`, { method });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get('allow'), `${method} ${path}`).toBe('POST');
        expect(res.body, `${method} ${path}`).toEqual({
          code: 'ERR_METHOD_NOT_ALLOWED',
          message: expect.any(String),
          status: 405,
        });
      }
    }
  });
});
