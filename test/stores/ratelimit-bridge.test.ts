import { randomBytes } from 'node:crypto';
import Limiter from 'async-ratelimiter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, type RedisClient } from '../../src/stores/redis-client.ts';
import { ioredisCommandBridge } from '../../src/stores/ratelimit-bridge.ts';
import { TEST_REDIS_URL } from '../helpers/services.ts';

/**
 * koa-ratelimit's Redis limiter (async-ratelimiter) through our bridge, on a real Redis.
 * Several processes are several bridges on their own connections.
 */
describe.runIf(TEST_REDIS_URL)('rate-limit bridge on Redis', () => {
  const clients: RedisClient[] = [];
  const namespace = `test:rl-bridge:${randomBytes(6).toString('hex')}`;
  const limiterOn = (client: RedisClient, max: number, duration = 60_000) =>
    new Limiter({ db: ioredisCommandBridge(client) as never, max, duration, namespace });

  beforeAll(async () => {
    for (let i = 0; i < 3; i++) clients.push(await connectRedis(TEST_REDIS_URL!, undefined, 3000));
  });
  afterAll(async () => {
    const [first] = clients;
    if (first) {
      for await (const keys of first.scanIterator({ MATCH: `${namespace}:*`, COUNT: 500 })) {
        if (keys.length) await first.del(keys);
      }
    }
    await Promise.all(clients.map((c) => c.quit()));
  });

  it('counts every request once, up to max, then refuses with the oldest request’s reset', async () => {
    const limiter = limiterOn(clients[0], 5);
    const before = Date.now();
    const seen = [];
    for (let i = 0; i < 7; i++) seen.push(await limiter.get({ id: 'sequential' }));
    expect(seen.map((r) => r.remaining)).toEqual([5, 4, 3, 2, 1, 0, 0]);
    expect(seen.every((r) => r.total === 5)).toBe(true);
    const reset = seen[6].reset;
    expect(reset).toBeGreaterThanOrEqual(Math.floor((before + 60_000) / 1000));
    expect(reset).toBeLessThanOrEqual(Math.ceil((Date.now() + 60_000) / 1000));
  });

  it('counts requests that read the same clock on different processes as different requests', async () => {
    // The library's own script keys a request by its timestamp alone: these collided.
    const bridges = clients.map((c) => ioredisCommandBridge(c));
    for (const b of bridges) (b.defineCommand as (n: string, s: object) => void)('ratelimiter', { numberOfKeys: 1 });
    const now = Date.now() + 0.25;
    const key = `${namespace}:same-clock`;
    const call = (b: Record<string, unknown>) =>
      (b.ratelimiter as (...a: (string | number)[]) => Promise<number[]>)(key, now, 60_000, 10, '0');
    const replies = await Promise.all(bridges.flatMap((b) => [call(b), call(b)]));
    expect(replies.map((r) => r[0]).sort((a, b) => b - a)).toEqual([10, 9, 8, 7, 6, 5]);
    expect(await clients[0].zCard(key)).toBe(6);
  });

  it('holds max in total over three processes under concurrency', async () => {
    const limiters = clients.map((c) => limiterOn(c, 60));
    const results = await Promise.all(
      Array.from({ length: 90 }, (_, i) => limiters[i % limiters.length].get({ id: 'spread' })),
    );
    expect(results.filter((r) => r.remaining > 0)).toHaveLength(60);
    expect(results.filter((r) => r.remaining === 0)).toHaveLength(30);
  });

  it('peeks without counting, and lets requests through again once the window has slid', async () => {
    const limiter = limiterOn(clients[1], 2, 300);
    expect((await limiter.get({ id: 'slide', peek: true })).remaining).toBe(2);
    expect((await limiter.get({ id: 'slide' })).remaining).toBe(2);
    expect((await limiter.get({ id: 'slide' })).remaining).toBe(1);
    expect((await limiter.get({ id: 'slide' })).remaining).toBe(0);
    expect((await limiter.get({ id: 'slide', peek: true })).remaining).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect((await limiter.get({ id: 'slide' })).remaining).toBe(2);
  });

  it('loads its script again after Redis forgets it (SCRIPT FLUSH)', async () => {
    const limiter = limiterOn(clients[2], 3);
    expect((await limiter.get({ id: 'flushed' })).remaining).toBe(3);
    await clients[2].scriptFlush();
    expect((await limiter.get({ id: 'flushed' })).remaining).toBe(2);
  });
});
