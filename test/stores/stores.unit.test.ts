import { connectRedis, type RedisClient } from '../../src/stores/redis-client.ts';
import { memoryChallengeStore, redisChallengeStore } from '../../src/stores/challenge-store.ts';
import { memoryCounterStore, redisCounterStore } from '../../src/stores/counter-store.ts';
import { memorySpentTokenStore, redisSpentTokenStore } from '../../src/stores/spent-token-store.ts';
import { storeContract } from './contract.ts';

/**
 * Runs the store contract against the memory implementations (fake clock) and, when
 * TEST_REDIS_URL is set, against Redis. An unreachable TEST_REDIS_URL fails the Redis suite
 * in its setup; without the variable the Redis suite is not registered at all.
 */

storeContract('memory', async () => {
  let t = 1_700_000_000_000;
  const now = () => t;
  return {
    challenges: () => memoryChallengeStore(now),
    spent: () => memorySpentTokenStore(memoryCounterStore(now), now),
    counters: () => memoryCounterStore(now),
    elapse: async (ms) => {
      t += ms;
    },
  };
});

const redisUrl = process.env.TEST_REDIS_URL;
if (redisUrl) {
  let client: RedisClient | undefined;
  const prefixes = new Set<string>();
  const track = (prefix: string) => (prefixes.add(prefix), prefix);
  storeContract(
    `redis (${redisUrl})`,
    async () => {
      client = await connectRedis(redisUrl, undefined, 3000);
      const c = client;
      return {
        challenges: (prefix) => redisChallengeStore(c, track(prefix)),
        spent: (prefix) => redisSpentTokenStore(c, track(prefix), `${prefix}cnt:`),
        counters: (prefix) => redisCounterStore(c, track(prefix)),
        elapse: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      };
    },
    async () => {
      if (!client) return;
      for (const prefix of prefixes) {
        for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
          if (keys.length) await client.del(keys);
        }
      }
      await client.quit();
    },
  );
}
