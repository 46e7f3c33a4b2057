import type { RedisClient } from './redis-client.ts';
import { positiveTtl, TtlMap } from './challenge-store.ts';
import { redisScript } from './redis-script.ts';

/**
 * Fixed-window counters (requests per address or per site per minute, fed to risk scoring).
 * Keys are `prefix + key`. A window starts at the first hit and lasts `windowMs`.
 */
export interface CounterStore {
  /** Counts one hit on `key` and resolves to the number of hits in the current window (>= 1). */
  hit(key: string, windowMs: number): Promise<number>;
  /** Hits on `key` in its current window, without counting one (0 when none). */
  count(key: string): Promise<number>;
}

/** Process-memory counters; `now` is injectable for fake time. */
export function memoryCounterStore(prefix: string, now: () => number = () => Date.now()): CounterStore {
  const map = new TtlMap<{ count: number }>({ now });
  return {
    async hit(key, windowMs) {
      const k = prefix + key;
      const entry = map.get(k);
      if (entry) return ++entry.count;
      map.insertNew(k, { count: 1 }, positiveTtl(windowMs));
      return 1;
    },
    async count(key) {
      return map.get(prefix + key)?.count ?? 0;
    },
  };
}

/** INCR, and set the expiry when the key has none (i.e. it was just created): one atomic step. */
const hitScript = redisScript(`
local n = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
`);

/** Redis counters: INCR plus PEXPIRE-if-none in a Lua script. */
export function redisCounterStore(client: RedisClient, prefix: string): CounterStore {
  return {
    async hit(key, windowMs) {
      const n = await hitScript(client, { keys: [prefix + key], arguments: [String(positiveTtl(windowMs))] });
      return Number(n);
    },
    async count(key) {
      return Number((await client.get(prefix + key)) ?? 0);
    },
  };
}
