import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, type RedisClient } from '../../src/stores/redis-client.ts';
import { redisScript } from '../../src/stores/redis-script.ts';
import { TEST_REDIS_URL } from '../helpers/services.ts';

describe.runIf(TEST_REDIS_URL)('Lua scripts run by SHA-1 on Redis', () => {
  let client: RedisClient;
  const key = `test:redis-script:${randomBytes(6).toString('hex')}`;
  const append = redisScript(`return redis.call('APPEND', KEYS[1], ARGV[1])`);
  const broken = redisScript(`return redis.call('NO_SUCH_COMMAND')`);

  beforeAll(async () => {
    client = await connectRedis(TEST_REDIS_URL!, undefined, 3000);
  });
  afterAll(async () => {
    await client?.del(key);
    await client?.quit();
  });

  it('runs the script, and again after Redis forgets it (SCRIPT FLUSH)', async () => {
    expect(await append(client, { keys: [key], arguments: ['ab'] })).toBe(2);
    expect(await append(client, { keys: [key], arguments: ['c'] })).toBe(3);
    await client.scriptFlush();
    expect(await append(client, { keys: [key], arguments: ['d'] })).toBe(4);
    expect(await client.get(key)).toBe('abcd');
  });

  it('passes any other error on', async () => {
    await expect(broken(client, { keys: [], arguments: [] })).rejects.toThrow(/unknown command|Unknown Redis command/i);
  });
});
