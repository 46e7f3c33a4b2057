import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeySchema } from '../../src/entities/api-key.entity.ts';
import { AppError } from '../../src/errors.ts';
import {
  authenticateApiKey,
  createApiKey,
  hashApiKey,
  listApiKeys,
  parseBearer,
  revokeApiKey,
  settleLastUsed,
} from '../../src/accounts/api-keys.ts';
import { createUser, ensureInitialAccount } from '../../src/accounts/users.ts';
import { openTestServices, TEST_REDIS_URL, type TestServices } from '../helpers/services.ts';

let services: TestServices;
beforeAll(async () => {
  services = await openTestServices({ store: 'memory' });
});
afterAll(async () => {
  await services?.cleanup();
});

async function expectUnauthorized(p: Promise<unknown>) {
  const err = await p.then(
    () => null,
    (e) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).status).toBe(401);
}

describe('API keys', () => {
  it('creates the initial account once, even when asked twice at the same time', async () => {
    const [a, b] = await Promise.all([
      ensureInitialAccount(services.orm.em.fork()),
      ensureInitialAccount(services.orm.em.fork()),
    ]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    expect(await ensureInitialAccount(services.orm.em.fork())).toBeNull();
  });

  it('stores only a SHA-256 hash and a short prefix, never the key', async () => {
    const em = services.orm.em.fork();
    const user = await createUser(em, { name: 'hash-check' });
    const { key, apiKey } = await createApiKey(em, user);
    expect(key).toMatch(/^ak_[0-9a-f]{10}_[A-Za-z0-9_-]{43}$/);
    const row = await services.orm.em.fork().findOneOrFail(ApiKeySchema, { id: apiKey.id });
    expect(row.hash).toBe(hashApiKey(key).toString('hex'));
    expect(row.hash).not.toContain(key.slice(14));
    expect(key.startsWith(`ak_${row.prefix}_`)).toBe(true);
    expect(JSON.stringify(row)).not.toContain(row.hash);
  });

  it('authenticates a good key and records last_used_at', async () => {
    const em = services.orm.em.fork();
    const user = await createUser(em, { name: 'auth' });
    const { key, apiKey } = await createApiKey(em, user);
    expect(apiKey.lastUsedAt).toBeNull();
    const found = await authenticateApiKey(services.orm.em.fork(), `Bearer ${key}`);
    expect(found.id).toBe(apiKey.id);
    expect(found.user.id).toBe(user.id);
    await settleLastUsed(); // written off the request's path
    const row = await services.orm.em.fork().findOneOrFail(ApiKeySchema, { id: apiKey.id });
    expect(row.lastUsedAt).toBeInstanceOf(Date);
  });

  it('refuses missing, malformed, unknown and tampered keys', async () => {
    const em = services.orm.em.fork();
    const user = await createUser(em, { name: 'bad' });
    const { key } = await createApiKey(em, user);
    await expectUnauthorized(authenticateApiKey(em, undefined));
    await expectUnauthorized(authenticateApiKey(em, key));
    await expectUnauthorized(authenticateApiKey(em, `Basic ${key}`));
    await expectUnauthorized(authenticateApiKey(em, 'Bearer nonsense'));
    await expectUnauthorized(authenticateApiKey(em, `Bearer ak_0000000000_${'A'.repeat(43)}`));
    const tampered = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
    await expectUnauthorized(authenticateApiKey(em, `Bearer ${tampered}`));
  });

  it('revokes by prefix or id, after which the key is refused', async () => {
    const em = services.orm.em.fork();
    const user = await createUser(em, { name: 'revoke' });
    const one = await createApiKey(em, user, 'one');
    const two = await createApiKey(em, user, 'two');
    expect((await revokeApiKey(services.orm.em.fork(), `ak_${one.apiKey.prefix}`))?.revokedAt).toBeInstanceOf(Date);
    expect((await revokeApiKey(services.orm.em.fork(), String(two.apiKey.id)))?.revokedAt).toBeInstanceOf(Date);
    expect(await revokeApiKey(services.orm.em.fork(), 'ak_ffffffffff')).toBeNull();
    await expectUnauthorized(authenticateApiKey(services.orm.em.fork(), `Bearer ${one.key}`));
    await expectUnauthorized(authenticateApiKey(services.orm.em.fork(), `Bearer ${two.key}`));
    const listed = await listApiKeys(services.orm.em.fork(), user.id);
    expect(listed.map((k) => k.name)).toEqual(['two', 'one']);
  });

  it('parses only well-formed Bearer headers', () => {
    expect(parseBearer('Bearer abc')).toBe('abc');
    expect(parseBearer('bearer abc')).toBe('abc');
    expect(parseBearer('Bearer')).toBeUndefined();
    expect(parseBearer('Bearer a b')).toBeUndefined();
    expect(parseBearer('Token abc')).toBeUndefined();
  });

  it('answers a known key from the cache, and refuses it at once after revocation', async () => {
    const em = services.orm.em.fork();
    const user = await createUser(em, { name: 'cached' });
    const { key, apiKey } = await createApiKey(em, user);
    const opts = { stores: services.stores };
    expect((await authenticateApiKey(services.orm.em.fork(), `Bearer ${key}`, opts)).id).toBe(apiKey.id);
    // Behind the service's back (no revokeApiKey): the cache still answers, with no query.
    await services.orm.em.getConnection().execute('update api_keys set name = ? where id = ?', ['renamed', apiKey.id]);
    expect((await authenticateApiKey(services.orm.em.fork(), `Bearer ${key}`, opts)).name).toBe('default');
    // The wrong secret for a cached prefix is still refused.
    await expectUnauthorized(
      authenticateApiKey(services.orm.em.fork(), `Bearer ${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`, opts),
    );
    await revokeApiKey(services.orm.em.fork(), `ak_${apiKey.prefix}`, undefined, services.stores);
    await expectUnauthorized(authenticateApiKey(services.orm.em.fork(), `Bearer ${key}`, opts));
  });
});

describe.skipIf(!TEST_REDIS_URL)('API-key cache across instances (Redis)', () => {
  let redisServices: TestServices;
  beforeAll(async () => {
    redisServices = await openTestServices({ store: 'redis' });
  });
  afterAll(async () => {
    await redisServices?.close();
  });

  it('drops a cached key when another instance revokes it (revocation version in Redis)', async () => {
    const em = redisServices.orm.em.fork();
    const user = await createUser(em, { name: 'shared' });
    const { key, apiKey } = await createApiKey(em, user);
    const opts = { stores: redisServices.stores };
    expect((await authenticateApiKey(redisServices.orm.em.fork(), `Bearer ${key}`, opts)).id).toBe(apiKey.id);
    // Another instance revokes: its row update and its bump of the shared version, and
    // nothing in this process.
    await redisServices.orm.em
      .getConnection()
      .execute('update api_keys set revoked_at = now() where id = ?', [apiKey.id]);
    await redisServices.stores.redis!.incr(`${redisServices.stores.keyPrefix}apikeys:revocations`);
    await expectUnauthorized(authenticateApiKey(redisServices.orm.em.fork(), `Bearer ${key}`, opts));
  });
});
