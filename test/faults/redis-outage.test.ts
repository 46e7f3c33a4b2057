import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { request } from '../helpers/http.ts';
import { createTestSite, siteverify, v3Token } from '../helpers/captcha.ts';
import { hasRedisServer, privateRedis } from '../helpers/redis-server.ts';

// Needs a redis-server binary to stop and start; CI has one and must run this.
const runnable = hasRedisServer() || Boolean(process.env.CI);

describe.runIf(runnable)('Redis stopped during a run', () => {
  let redis: Awaited<ReturnType<typeof privateRedis>>;
  let services: TestServices;
  let server: TestServer;
  let site: { sitekey: string; secret: string };
  let key: string;
  const origin = 'https://shop.example';

  beforeAll(async () => {
    redis = await privateRedis();
    services = await openTestServices({ env: { REDIS_URL: redis.url, CAPTCHA_ENGINE: 'auto' } });
    expect(services.stores.kind).toBe('redis');
    server = await startTestServer(services);
    site = await createTestSite(services, [origin]);
    key = (await createKeyedUser(services, 'outage')).key;
  });
  afterAll(async () => {
    await server?.close();
    await services?.cleanup();
    await redis?.stop();
  });

  const v3 = () =>
    v3Token(server.url, { sitekey: site.sitekey, origin, action: 'a', tokenKey: services.config.tokenKey });

  it('fails closed, keeps area A serving, and recovers without a restart', async () => {
    const before = await v3();
    expect(before.status).toBe(201);
    const unspent = before.body.token;

    await redis.stop();

    const verdict = await siteverify(server.url, { secret: site.secret, response: unspent });
    expect(verdict.status).toBe(200);
    expect(verdict.body).toEqual({ success: false, 'error-codes': ['internal-error'] });

    const challenge = await v3();
    expect(challenge.status).toBe(503);
    expect(challenge.body).toEqual({ code: 'ERR_UNAVAILABLE', message: expect.any(String), status: 503 });
    expect(challenge.headers.get('retry-after')).toBeTruthy();

    // Area A: the per-key limiter fails open, so the API keeps answering.
    expect((await request(`${server.url}/api/v1/account`, { key })).status).toBe(200);
    expect((await request(`${server.url}/readyz`)).status).toBe(503);

    await redis.start();
    let recovered = 0;
    for (let i = 0; i < 100 && recovered !== 201; i++) {
      recovered = (await v3()).status;
      if (recovered !== 201) await new Promise((r) => setTimeout(r, 100));
    }
    expect(recovered).toBe(201);
    // The token that could not be verified during the outage was never spent: it works now.
    expect((await siteverify(server.url, { secret: site.secret, response: unspent })).body.success).toBe(true);
    expect((await request(`${server.url}/readyz`)).status).toBe(200);
  }, 60_000);
});

describe.runIf(runnable)('Redis frozen during a run (connected, not answering)', () => {
  let redis: Awaited<ReturnType<typeof privateRedis>>;
  let services: TestServices;
  let server: TestServer;
  let site: { sitekey: string; secret: string };
  const origin = 'https://shop.example';

  beforeAll(async () => {
    redis = await privateRedis();
    // The watchdog (src/stores/redis-watchdog.ts) stands in for a per-command timeout.
    services = await openTestServices({
      env: { REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '400', CAPTCHA_ENGINE: 'auto' },
    });
    server = await startTestServer(services);
    site = await createTestSite(services, [origin]);
  });
  afterAll(async () => {
    redis?.resume();
    await server?.close();
    await services?.cleanup();
    await redis?.stop();
  });

  const v3 = () =>
    v3Token(server.url, { sitekey: site.sitekey, origin, action: 'a', tokenKey: services.config.tokenKey });

  it('fails the waiting calls closed instead of hanging them, then recovers without a restart', async () => {
    const before = await v3();
    expect(before.status).toBe(201);

    redis.pause();
    try {
      // Both answer (no hang): siteverify with its protocol's internal-error, a challenge 503.
      const [verdict, challenge] = await Promise.all([
        siteverify(server.url, { secret: site.secret, response: before.body.token }),
        v3(),
      ]);
      expect(verdict.status).toBe(200);
      expect(verdict.body).toEqual({ success: false, 'error-codes': ['internal-error'] });
      expect(challenge.status).toBe(503);
      expect((await request(`${server.url}/readyz`)).status).toBe(503);
      // Frozen across several watchdog rounds: each new connection's handshake hangs too.
      await new Promise((r) => setTimeout(r, 1500));
      expect((await v3()).status).toBe(503);
    } finally {
      redis.resume();
    }

    let recovered = 0;
    for (let i = 0; i < 100 && recovered !== 201; i++) {
      recovered = (await v3()).status;
      if (recovered !== 201) await new Promise((r) => setTimeout(r, 100));
    }
    expect(recovered).toBe(201);
    const fresh = await v3();
    expect((await siteverify(server.url, { secret: site.secret, response: fresh.body.token })).body.success).toBe(true);
    expect((await request(`${server.url}/readyz`)).status).toBe(200);
  }, 60_000);
});
