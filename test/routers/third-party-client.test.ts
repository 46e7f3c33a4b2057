import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomInt } from 'node:crypto';
import { betterAuth } from 'better-auth';
import { memoryAdapter } from 'better-auth/adapters/memory';
import { captcha } from 'better-auth/plugins';
import { openTestServices, startTestServer, type TestServer, type TestServices } from '../helpers/services.ts';
import { request } from '../helpers/http.ts';
import {
  browser,
  createTestSite,
  envAnswerFor,
  solveProofAsync,
  v3Token,
  PERSON_TELEMETRY,
} from '../helpers/captcha.ts';

/**
 * A server written against Turnstile and reCAPTCHA: better-auth's captcha plugin, its real
 * providers, pointed at our siteverify by changing only the verify URL and the keys.
 */
let services: TestServices;
let server: TestServer;
let site: { sitekey: string; secret: string };
const origin = 'https://shop.example';

beforeAll(async () => {
  services = await openTestServices({ env: { TRUST_PROXY: 'true', CAPTCHA_ENGINE: 'auto' } });
  server = await startTestServer(services);
  site = await createTestSite(services, [origin]);
});
afterAll(async () => {
  await server?.close();
  await services?.cleanup();
});

function authWith(provider: 'cloudflare-turnstile' | 'google-recaptcha') {
  return betterAuth({
    secret: 'a-test-secret-of-at-least-32-characters!!',
    baseURL: 'http://localhost:4000',
    database: memoryAdapter({ user: [], session: [], account: [], verification: [] }),
    emailAndPassword: { enabled: true },
    logger: { disabled: true },
    plugins: [
      captcha({
        provider,
        secretKey: site.secret,
        siteVerifyURLOverride: `${server.url}/api/v1/siteverify`,
        ...(provider === 'google-recaptcha' ? { minScore: 0.5 } : {}),
      }),
    ],
  });
}

/** A sign-up from the visitor at `from` (their address reaches better-auth as X-Forwarded-For, which it sends on as remoteip). */
async function signUp(auth: ReturnType<typeof authWith>, token: string, from: string) {
  const res = await auth.handler(
    new Request('http://localhost:4000/api/auth/sign-up/email', {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'x-captcha-response': token,
        origin: 'http://localhost:4000',
        'x-forwarded-for': from,
      },
      body: JSON.stringify({
        email: `u${randomInt(1e9)}@example.com`,
        password: 'correct horse battery staple',
        name: 'U',
      }),
    }),
  );
  return res.status;
}

async function browserToken(path: '/api/v2/challenges' | '/api/v3/challenges', from: string): Promise<string> {
  const telemetry = { ...PERSON_TELEMETRY, interactions: 5, time_on_page_ms: 9000 };
  if (path === '/api/v3/challenges') {
    const res = await v3Token(server.url, {
      sitekey: site.sitekey,
      origin,
      ip: from,
      action: 'signup',
      telemetry,
      tokenKey: services.config.tokenKey,
    });
    expect(res.status).toBe(201);
    return res.body.token;
  }
  // v2: the invisible work and the environment answer a page would send.
  const res = await request(`${server.url}${path}`, {
    method: 'POST',
    headers: browser(origin, from),
    json: { sitekey: site.sitekey, action: 'signup', telemetry },
  });
  expect(res.body.outcome).toBe('pow');
  const work = res.body.work;
  const proof = { ...(await solveProofAsync(work)), env: envAnswerFor(services, work), telemetry };
  const verdict = await request(`${server.url}${path}/${work.id}/verify`, {
    method: 'POST',
    headers: browser(origin, from),
    json: proof,
  });
  expect(verdict.body.success).toBe(true);
  return verdict.body.token;
}

describe('better-auth captcha plugin against our siteverify', () => {
  it.each([
    ['cloudflare-turnstile', '/api/v2/challenges'],
    ['google-recaptcha', '/api/v3/challenges'],
  ] as const)('%s provider: success once, failure on replay', async (provider, path) => {
    const auth = authWith(provider);
    const from = `10.9.${randomInt(256)}.${randomInt(1, 255)}`;
    const token = await browserToken(path, from);
    expect(await signUp(auth, token, from)).toBe(200);
    expect(await signUp(auth, token, from)).toBe(403);
    expect(await signUp(auth, 'garbage', from)).toBe(403);
    // A token carried to another network (a solving farm's) is refused there.
    const relayed = await browserToken(path, from);
    expect(await signUp(auth, relayed, '203.0.113.50')).toBe(403);
  });
});
