import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import type { AppRouter } from '../../routers/root.ts';
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
  services = await openTestServices();
  server = await startTestServer(services);
});
afterAll(async () => {
  await server?.close();
  await services?.cleanup();
});

function client(key?: string) {
  return createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${server.url}/trpc`, headers: key ? { Authorization: `Bearer ${key}` } : {} })],
  });
}

describe('/trpc', () => {
  it('serves account.get to a typed client with the same API-key auth', async () => {
    const { key, user } = await createKeyedUser(services, 'typed');
    const account = await client(key).account.get.query();
    expect(account.data.id).toBe(user.id);
    expect(account.data.api_key.prefix).toMatch(/^ak_/);
  });

  it('answers UNAUTHORIZED (HTTP 401) without a key', async () => {
    const err = await client()
      .account.get.query()
      .then(
        () => null,
        (e) => e,
      );
    expect(err).toBeInstanceOf(TRPCClientError);
    expect(err.data.code).toBe('UNAUTHORIZED');
    expect(err.data.httpStatus).toBe(401);
    expect(err.data.errorCode).toBe('ERR_API_KEY_MISSING');
  });

  it('answers 401 for a bad key before reaching tRPC', async () => {
    const res = await fetch(`${server.url}/trpc/account.get`, { headers: { Authorization: 'Bearer bad' } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ code: 'ERR_API_KEY_INVALID', message: expect.any(String), status: 401 });
  });
});

describe('/trpc scope', () => {
  it('serves the API-key procedures and siteverify: browser procedures stay on their REST routes', async () => {
    const { key } = await createKeyedUser(services, 'scope');
    for (const path of ['challenges.score', 'nope.nothing', 'account.get,challenges.score']) {
      const res = await fetch(`${server.url}/trpc/${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(res.status, path).toBe(404);
      expect(await res.json()).toEqual({ code: 'ERR_NOT_FOUND', message: expect.any(String), status: 404 });
    }
    const verdict = await fetch(`${server.url}/trpc/siteverify.verify`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ secret: 'sec_0000000000_unknown', response: 'x' }),
    });
    expect(verdict.status).toBe(200);
    expect(await verdict.json()).toEqual({
      result: { data: { success: false, 'error-codes': ['invalid-input-secret'] } },
    });
  });
});
