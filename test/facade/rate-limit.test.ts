import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  TEST_REDIS_URL,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { request } from '../helpers/http.ts';

/** The per-key API limit (240/minute) against each store the service can run on. */
function suite(store: 'memory' | 'redis') {
  describe(`per-key rate limit on ${store}`, () => {
    let services: TestServices;
    let server: TestServer;
    beforeAll(async () => {
      services = await openTestServices({ store });
      expect(services.stores.kind).toBe(store);
      server = await startTestServer(services);
    });
    afterAll(async () => {
      await server?.close();
      await services?.cleanup();
    });

    it('refuses request 241 within a minute for one key and leaves another key alone', async () => {
      const a = await createKeyedUser(services, 'limited');
      const b = await createKeyedUser(services, 'other');
      for (let i = 1; i <= 240; i++) {
        const res = await request(`${server.url}/api/v1/account`, { key: a.key });
        expect(res.status).toBe(200);
        if (i === 1) {
          expect(res.headers.get('x-ratelimit-limit')).toBe('240');
          expect(res.headers.get('x-ratelimit-remaining')).toBe('239');
          // Whole epoch seconds on every store, within the one-minute window.
          const reset = res.headers.get('x-ratelimit-reset') ?? '';
          expect(reset).toMatch(/^\d+$/);
          expect(Number(reset)).toBeGreaterThan(Date.now() / 1000);
          expect(Number(reset)).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
        }
      }
      const refused = await request(`${server.url}/api/v1/account`, { key: a.key });
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({
        code: 'ERR_RATE_LIMITED',
        message: expect.stringMatching(/too many requests/i),
        status: 429,
      });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(refused.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);

      const other = await request(`${server.url}/api/v1/account`, { key: b.key });
      expect(other.status).toBe(200);
      expect(other.headers.get('x-ratelimit-remaining')).toBe('239');
    });

    it('does not count requests without a valid key against anyone', async () => {
      const res = await request(`${server.url}/api/v1/account`, { headers: { Authorization: 'Bearer nope' } });
      expect(res.status).toBe(401);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    });
  });
}

suite('memory');
if (TEST_REDIS_URL) suite('redis');
