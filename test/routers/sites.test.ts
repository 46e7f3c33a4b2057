import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import type { AppRouter } from '../../routers/root.ts';
import { SiteSchema } from '../../src/entities/site.entity.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { request } from '../helpers/http.ts';
import { browser, siteverify, v3Token as solvedV3Token } from '../helpers/captcha.ts';

let services: TestServices;
let server: TestServer;
beforeAll(async () => {
  services = await openTestServices({ store: 'memory', env: { CAPTCHA_ENGINE: 'auto' } });
  server = await startTestServer(services);
});
afterAll(async () => {
  await server?.close();
  await services?.cleanup();
});

const client = (key: string) =>
  createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${server.url}/trpc`, headers: { Authorization: `Bearer ${key}` } })],
  });

async function v3Token(sitekey: string, origin: string) {
  return solvedV3Token(server.url, { sitekey, origin, action: 'x', tokenKey: services.config.tokenKey });
}

describe('sites procedures on /trpc', () => {
  it('creates a site with normalised origins and shows the secret once, stored hashed', async () => {
    const { key } = await createKeyedUser(services, 'site-admin');
    const api = client(key);
    const created = await api.sites.create.mutate({
      name: 'Shop',
      origins: ['HTTPS://Shop.Example:443', 'https://*.shop.example', 'http://localhost:3000/'],
    });
    expect(created.data.origins).toEqual(['https://shop.example', 'https://*.shop.example', 'http://localhost:3000']);
    expect(created.data.secret).toMatch(/^sec_[0-9a-f]{10}_/);
    const listed = await api.sites.list.query();
    expect(listed.data).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(created.data.secret);
    const row = await services.orm.em.fork().findOneOrFail(SiteSchema, { sitekey: created.data.sitekey });
    expect(row.secretHash).not.toContain(created.data.secret);
    expect(row.secretHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses bad origins with a validation error', async () => {
    const { key } = await createKeyedUser(services, 'bad-origins');
    for (const origins of [['ftp://x.example'], ['https://x.example/path'], ['not an origin'], ['https://*.com'], []]) {
      const err = await client(key)
        .sites.create.mutate({ name: 'x', origins })
        .then(
          () => null,
          (e) => e,
        );
      expect(err, JSON.stringify(origins)).toBeInstanceOf(TRPCClientError);
      expect(err.data.httpStatus).toBe(err.data.code === 'BAD_REQUEST' ? 400 : 422);
    }
  });

  it('updates origins (taking effect at once) and rotates the secret', async () => {
    const { key } = await createKeyedUser(services, 'rotator');
    const api = client(key);
    const { data } = await api.sites.create.mutate({ name: 'Blog', origins: ['https://blog.example'] });
    expect((await v3Token(data.sitekey, 'https://new.example')).status).toBe(403);
    await api.sites.update.mutate({ sitekey: data.sitekey, origins: ['https://new.example'] });
    const token = await v3Token(data.sitekey, 'https://new.example');
    expect(token.status).toBe(201);

    const rotated = await api.sites.rotateSecret.mutate({ sitekey: data.sitekey });
    expect(rotated.data.secret).not.toBe(data.secret);
    expect(
      (await siteverify(server.url, { secret: data.secret, response: token.body.token })).body['error-codes'],
    ).toEqual(['invalid-input-secret']);
    expect(
      (await siteverify(server.url, { secret: rotated.data.secret, response: token.body.token })).body.success,
    ).toBe(true);
  });

  it('sets a minimum score (default 0.5), in hundredths from 0 to 1', async () => {
    const { key } = await createKeyedUser(services, 'minimum');
    const api = client(key);
    const { data } = await api.sites.create.mutate({ name: 'Min', origins: ['https://min.example'] });
    expect(data.min_score).toBe(0.5);
    const lowered = await api.sites.update.mutate({ sitekey: data.sitekey, min_score: 0.35 });
    expect(lowered.data.min_score).toBe(0.35);
    for (const bad of [1.5, -0.1, 0.333]) {
      const err = await api.sites.update.mutate({ sitekey: data.sitekey, min_score: bad }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, String(bad)).toBeInstanceOf(TRPCClientError);
    }
    // A failed update changed nothing.
    expect((await api.sites.list.query()).data.find((s) => s.sitekey === data.sitekey)?.min_score).toBe(0.35);
    const created = await api.sites.create.mutate({ name: 'Open', origins: ['https://open.example'], min_score: 0 });
    expect(created.data.min_score).toBe(0);
  });

  it('sets the security level and a work floor, which the next challenge follows at once', async () => {
    const { key } = await createKeyedUser(services, 'levels');
    const api = client(key);
    const { data } = await api.sites.create.mutate({
      name: 'Bank',
      origins: ['https://bank.example'],
      security_level: 'low',
    });
    expect(data).toMatchObject({ security_level: 'low', min_work_bits: null });
    const bits = async () =>
      (
        await request(`${server.url}/api/v3/challenges`, {
          method: 'POST',
          headers: browser('https://bank.example', `10.77.${Math.floor(Math.random() * 250)}.1`),
          json: { sitekey: data.sitekey, action: 'x' },
        })
      ).body.challenge;
    expect(await bits()).toMatchObject({ count: 8, bits: 7 });
    await api.sites.update.mutate({ sitekey: data.sitekey, security_level: 'high' });
    expect(await bits()).toMatchObject({ count: 8, bits: 11 });
    await api.sites.update.mutate({ sitekey: data.sitekey, min_work_bits: 27 });
    expect(await bits()).toMatchObject({ count: 8, bits: 12 });
    const err = await api.sites.update.mutate({ sitekey: data.sitekey, security_level: 'extreme' as 'high' }).then(
      () => null,
      (e) => e,
    );
    expect(err).toBeInstanceOf(TRPCClientError);
  });

  it('keeps sites per owner and deletes them', async () => {
    const a = await createKeyedUser(services, 'owner-a');
    const b = await createKeyedUser(services, 'owner-b');
    const { data } = await client(a.key).sites.create.mutate({ name: 'A', origins: ['https://a.example'] });
    expect((await client(b.key).sites.list.query()).data).toEqual([]);
    for (const attempt of [
      () => client(b.key).sites.update.mutate({ sitekey: data.sitekey, name: 'stolen' }),
      () => client(b.key).sites.rotateSecret.mutate({ sitekey: data.sitekey }),
      () => client(b.key).sites.delete.mutate({ sitekey: data.sitekey }),
    ]) {
      const err = await attempt().then(
        () => null,
        (e) => e,
      );
      expect(err.data.httpStatus).toBe(404);
    }
    expect(await client(a.key).sites.delete.mutate({ sitekey: data.sitekey })).toEqual({
      sitekey: data.sitekey,
      object: 'site',
      deleted: true,
    });
    expect((await client(a.key).sites.list.query()).data).toEqual([]);
  });
});
