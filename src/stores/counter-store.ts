import type { RedisClient } from './redis-client.ts';
import { positiveTtl, TtlMap } from './challenge-store.ts';
import { redisScript } from './redis-script.ts';

/**
 * Fixed-window counters (requests per address or per site per minute, fed to risk scoring).
 * On Redis, keys are `prefix + key`. A window starts at the first hit and lasts `windowMs`.
 */
export interface CounterStore {
  /** Counts one hit on `key` and resolves to the number of hits in the current window (>= 1). */
  hit(key: string, windowMs: number): Promise<number>;
  /** Hits on `key` in its current window, without counting one (0 when none). */
  count(key: string): Promise<number>;
  /**
   * Several counters in one store call (one round trip on Redis): counts one hit on each of
   * `hits`, as {@link hit} does, and reads each of `reads`, as {@link count} does. Resolves to
   * the hits' counts in order, then the reads'. A hit with `onlyIfZero` counts only when that
   * counter reads 0 before any hit of the call; otherwise it is read as {@link count} reads.
   */
  tally(hits: readonly CounterHit[], reads: readonly string[]): Promise<number[]>;
}

/** A counter to hit: its key and, for a window it starts, the window's length. */
export interface CounterHit {
  key: string;
  windowMs: number;
  /** Another counter: the hit counts only when this one reads 0 (at the start of the call). */
  onlyIfZero?: string;
}

/**
 * Process-memory counters; `now` is injectable for fake time. The map is this store's own, so
 * its keys are the callers' own, with no prefix: a key named once (the gateway's pace keys,
 * per clearance) is then looked up by a string whose hash V8 already holds, not by a new
 * concatenation to flatten and hash on every page.
 */
export function memoryCounterStore(now: () => number = () => Date.now()): CounterStore {
  const map = new TtlMap<{ count: number }>({ now });
  const hit = (key: string, windowMs: number) => {
    const entry = map.get(key);
    if (entry) return ++entry.count;
    map.insertNew(key, { count: 1 }, positiveTtl(windowMs));
    return 1;
  };
  const count = (key: string) => map.get(key)?.count ?? 0;
  return {
    async hit(key, windowMs) {
      return hit(key, windowMs);
    },
    async count(key) {
      return count(key);
    },
    async tally(hits, reads) {
      // Conditions first: a hit of this call never decides another's condition.
      const skip = hits.map((h) => h.onlyIfZero !== undefined && count(h.onlyIfZero) !== 0);
      const out = hits.map((h, i) => (skip[i] ? count(h.key) : hit(h.key, h.windowMs)));
      for (const key of reads) out.push(count(key));
      return out;
    },
  };
}

/**
 * For each of the first ARGV[1] keys (their windows in ARGV[2..]): INCR, and set the expiry
 * when the key has none (i.e. it was just created); then GET of the rest (0 when absent), up
 * to ARGV[2 + ARGV[1]] keys of replies. The keys after those are conditions: ARGV[2 + hits +
 * i] names the key index whose value must be 0 (read before any INCR) for hit i to count; 0
 * for none. A hit whose condition fails is a GET. One atomic step, one reply.
 */
const tallyScript = redisScript(`
local hits = tonumber(ARGV[1])
local replies = tonumber(ARGV[hits + 2])
local skip = {}
for i = 1, hits do
  local c = tonumber(ARGV[hits + 2 + i] or '0')
  skip[i] = c > 0 and (tonumber(redis.call('GET', KEYS[c]) or '0') or 0) ~= 0
end
local out = {}
for i = 1, replies do
  if i <= hits and not skip[i] then
    local n = redis.call('INCR', KEYS[i])
    if redis.call('PTTL', KEYS[i]) < 0 then redis.call('PEXPIRE', KEYS[i], ARGV[i + 1]) end
    out[i] = n
  else
    out[i] = tonumber(redis.call('GET', KEYS[i]) or '0') or 0
  end
end
return out
`);

/** Redis counters: INCR plus PEXPIRE-if-none in one Lua script (a hit is a tally of one). */
export function redisCounterStore(client: RedisClient, prefix: string): CounterStore {
  const tally: CounterStore['tally'] = async (hits, reads) => {
    const keys = [...hits.map((h) => prefix + h.key), ...reads.map((k) => prefix + k)];
    const replies = keys.length;
    const conditions = hits.map((h) => (h.onlyIfZero === undefined ? 0 : keys.push(prefix + h.onlyIfZero)));
    const reply = (await tallyScript(client, {
      keys,
      arguments: [
        String(hits.length),
        ...hits.map((h) => String(positiveTtl(h.windowMs))),
        String(replies),
        ...conditions.map(String),
      ],
    })) as unknown[];
    return reply.map(Number);
  };
  return {
    async hit(key, windowMs) {
      return (await tally([{ key, windowMs }], []))[0];
    },
    async count(key) {
      return Number((await client.get(prefix + key)) ?? 0);
    },
    tally,
  };
}
