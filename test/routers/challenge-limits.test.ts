import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openTestServices,
  startTestServer,
  TEST_REDIS_URL,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { request } from '../helpers/http.ts';
import { browser, createTestSite } from '../helpers/captcha.ts';

/** The specification's rate limits (its section 8), route for route. */
const limits: Array<[method: 'GET' | 'POST', path: string, limit: number]> = [
  ['POST', '/api/v1/challenges', 60],
  ['GET', '/api/v1/challenges/{challenge}/asset', 120],
  ['POST', '/api/v1/challenges/{challenge}/verify', 60],
  ['POST', '/api/v1/challenges/{challenge}/regenerate', 30],
  ['POST', '/api/v2/challenges', 60],
  ['POST', '/api/v2/challenges/{challenge}/verify', 60],
  ['POST', '/api/v3/challenges', 60],
  ['POST', '/api/siteverify', 120],
  ['POST', '/api/v1/siteverify', 120],
  // Issue 14: siteverify at the providers' paths keeps the spec's limit (raisable per site).
  ['POST', '/turnstile/v0/siteverify', 120],
  ['POST', '/recaptcha/api/siteverify', 120],
  ['POST', '/siteverify', 120],
];

function suite(store: 'memory' | 'redis') {
  describe(`per-route limits per client address on ${store}`, () => {
    let services: TestServices;
    let server: TestServer;
    let sitekey: string;
    beforeAll(async () => {
      services = await openTestServices({ store, env: { TRUST_PROXY: 'true' } });
      server = await startTestServer(services);
      sitekey = (await createTestSite(services, ['https://shop.example'])).sitekey;
    });
    afterAll(async () => {
      await server?.close();
      await services?.cleanup();
    });

    it.each(limits)('%s %s allows %i a minute per address, then 429', async (method, path, limit) => {
      const url = `${server.url}${path.replace('{challenge}', 'unknown-challenge')}`;
      const send = (ip: string) =>
        request(url, {
          method,
          headers: browser('https://shop.example', ip),
          json:
            method === 'POST'
              ? { sitekey, action: 'a', secret: 'x', response: 'y', answer: 'A', nonce: '1' }
              : undefined,
        });
      const address = `198.51.100.${limit % 250}`;
      for (let i = 1; i <= limit; i++) {
        const res = await send(address);
        expect(res.status, `request ${i}`).not.toBe(429);
      }
      const refused = await send(address);
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(refused.headers.get('x-ratelimit-limit')).toBe(String(limit));
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      if (path.includes('siteverify')) {
        expect(refused.body).toEqual({ success: false, 'error-codes': ['rate-limited'] });
      } else {
        expect(refused.body).toEqual({ code: 'ERR_RATE_LIMITED', message: expect.any(String), status: 429 });
        // The widget must be able to read the refusal.
        expect(refused.headers.get('access-control-allow-origin')).toBe('https://shop.example');
      }
      // Another address is unaffected.
      expect((await send('203.0.113.77')).status).not.toBe(429);
    });
  });
}

suite('memory');
if (TEST_REDIS_URL) suite('redis');
