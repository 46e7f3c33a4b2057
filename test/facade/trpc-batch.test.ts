import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TRPC_BATCH } from '../../facade/trpc-mount.ts';
import { request } from '../helpers/http.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';

let services: TestServices;
let server: TestServer;
beforeAll(async () => {
  services = await openTestServices({ env: { API_RATE_LIMIT: '40' } });
  server = await startTestServer(services);
});
afterAll(async () => {
  await server?.close();
  await services?.cleanup();
});

const batch = (n: number) => `${server.url}/trpc/${Array.from({ length: n }, () => 'account.get').join(',')}?batch=1`;
const remaining = (res: { headers: Headers }) => Number(res.headers.get('X-RateLimit-Remaining'));

describe('/trpc batches and the per-key limit', () => {
  it('refuses a batch above the cap with the documented error body, before any call runs', async () => {
    const { key } = await createKeyedUser(services, 'big-batch');
    for (const n of [MAX_TRPC_BATCH + 1, 500]) {
      const res = await request(batch(n), { key });
      expect(res.status, `${n} calls`).toBe(400);
      expect(res.body).toMatchObject({
        status: 400,
        message: expect.stringContaining(`at most ${MAX_TRPC_BATCH} calls`),
      });
    }
    // Nothing was charged for the refused batches.
    const one = await request(`${server.url}/trpc/account.get`, { key });
    expect(one.status).toBe(200);
    expect(remaining(one)).toBe(39);
  });

  it('counts each call of a batch against the key: 10 calls move X-RateLimit-Remaining by 10', async () => {
    const { key } = await createKeyedUser(services, 'batcher');
    const first = await request(`${server.url}/trpc/account.get`, { key });
    expect(remaining(first)).toBe(39);
    const ten = await request(batch(10), { key });
    expect(ten.status).toBe(200);
    expect(ten.body).toHaveLength(10);
    expect(remaining(ten)).toBe(29);
    // REST and /trpc share the budget.
    const rest = await request(`${server.url}/api/v1/account`, { key });
    expect(remaining(rest)).toBe(28);
    // 20 more fit (8 left), the next 20-call batch does not: the whole batch is refused.
    expect((await request(batch(MAX_TRPC_BATCH), { key })).status).toBe(200);
    const over = await request(batch(MAX_TRPC_BATCH), { key });
    expect(over.status).toBe(429);
    expect(over.headers.get('Retry-After')).toMatch(/^\d+$/);
    expect(over.body).toMatchObject({ status: 429 });
  });
});
