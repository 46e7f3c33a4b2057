import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../facade/app.ts';
import { listen } from '../../facade/server.ts';
import { openTestServices, type TestServices } from '../helpers/services.ts';
import { request } from '../helpers/http.ts';
import { facadeTestRouter } from './test-router.ts';

let services: TestServices;
beforeAll(async () => {
  services = await openTestServices({ store: 'memory' });
});
afterAll(async () => {
  await services?.cleanup();
});

describe('graceful shutdown', () => {
  it('finishes an in-flight request with Connection: close, then refuses new connections', async () => {
    const server = await listen(createApp(services, facadeTestRouter), {
      port: 0,
      host: '127.0.0.1',
      requestTimeoutMs: 10_000,
    });
    const base = `http://127.0.0.1:${server.port}`;
    const inFlight = request(`${base}/api/test/slow?ms=400`);
    // Wait until the request has reached the server before closing.
    await new Promise<void>((resolve) => server.server.once('request', () => resolve()));
    const closed = server.close(5000);
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ done: true });
    // Its headers were not yet out when the drain began: the client is told not to reuse it.
    expect(res.headers.get('connection')).toBe('close');
    await closed;
    const after = await fetch(`${base}/healthz`).then(
      () => 'answered',
      () => 'refused',
    );
    expect(after).toBe('refused');
  });
});

describe('readiness', () => {
  it('answers 503 in the error shape when the database is gone', async () => {
    const own = await openTestServices({ store: 'memory' });
    const server = await listen(createApp(own), { port: 0, host: '127.0.0.1', requestTimeoutMs: 10_000 });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      expect((await request(`${base}/readyz`)).status).toBe(200);
      await own.db.close();
      const res = await request(`${base}/readyz`);
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({
        status: 503,
        message: expect.any(String),
        checks: { database: 'down', store: 'ok' },
      });
      expect(res.headers.get('retry-after')).toBe('5');
      expect((await request(`${base}/healthz`)).status).toBe(200);
    } finally {
      await server.close(1000);
      await own.cleanup().catch(() => {});
    }
  });
});
