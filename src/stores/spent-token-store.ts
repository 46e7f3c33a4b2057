import type { RedisClient } from './redis-client.ts';
import { positiveTtl, TtlMap } from './challenge-store.ts';
import type { CounterStore } from './counter-store.ts';
import { redisScript } from './redis-script.ts';

/** A fixed-window limit on a counter of the counter store (its key without the store's prefix). */
export interface CounterLimit {
  key: string;
  windowMs: number;
  max: number;
}

/** What {@link SpentTokenStore.redeemWithin} did: the window's count, and whether it redeemed. */
export interface CountedRedemption {
  hits: number;
  redeemed: boolean;
}

/**
 * Exactly-once redemption of sealed tokens, and remembered siteverify verdicts for
 * idempotency keys. Keys are `t:` + tokenId and `v:` + key, after the store's prefix on Redis.
 */
export interface SpentTokenStore {
  /**
   * Marks `tokenId` spent for `ttlMs` (at least the token's remaining lifetime). Resolves true
   * for exactly one call per id while the mark lives, false for every other.
   */
  redeem(tokenId: string, ttlMs: number): Promise<boolean>;
  /**
   * Remembers the verdict given under an idempotency key. The first verdict stored for a key
   * wins; later calls leave it as is until it expires, so retries all see the same answer.
   */
  rememberVerdict(key: string, verdict: object, ttlMs: number): Promise<void>;
  /** The verdict remembered under `key`, or null. */
  recallVerdict(key: string): Promise<object | null>;
  /**
   * Counts one hit on the counter `limit.key` (as CounterStore.hit counts it, same key) and,
   * when that count is within `limit.max` and `tokenId` is given, redeems `tokenId` as
   * {@link redeem} does. A call past the limit redeems nothing, so the token stays good for a
   * later call. `ttlMs` is read only with a token. One atomic step, one round trip on Redis
   * (siteverify's limit and redemption).
   */
  redeemWithin(limit: CounterLimit, tokenId: string | null, ttlMs: number): Promise<CountedRedemption>;
}

/**
 * Process-memory spent-token store; `now` is injectable for fake time. Each map step is
 * synchronous, so redemption is exactly once within the process. The map is this store's own:
 * `t:` and `v:` keep marks and verdicts apart in it, with no store prefix.
 */
export function memorySpentTokenStore(counters: CounterStore, now: () => number = () => Date.now()): SpentTokenStore {
  // A generous bound: evicting a live spent mark would allow a replay, so it must not be hit in
  // normal operation (1M marks ≈ 3,300 redemptions/s sustained over the 5-minute token life).
  const map = new TtlMap<string>({ now, maxEntries: 1_000_000 });
  return {
    async redeemWithin(limit, tokenId, ttlMs) {
      const hits = await counters.hit(limit.key, limit.windowMs);
      // `this.redeem`: the store's own method as callers see it (instrumentation wraps it).
      const redeemed = hits <= limit.max && tokenId !== null && (await this.redeem(tokenId, ttlMs));
      return { hits, redeemed };
    },
    async redeem(tokenId, ttlMs) {
      return map.setIfAbsent(`t:${tokenId}`, '1', positiveTtl(ttlMs));
    },
    async rememberVerdict(key, verdict, ttlMs) {
      map.setIfAbsent(`v:${key}`, JSON.stringify(verdict), positiveTtl(ttlMs));
    },
    async recallVerdict(key) {
      return parseObject(map.get(`v:${key}`));
    },
  };
}

/**
 * KEYS[1] a counter (CounterStore's fixed window), KEYS[2] a token's spent mark or absent;
 * ARGV window ms, max, mark ttl ms. INCR (expiry set when the key has none), then, within
 * max, SET NX PX of the mark. Reply {count, 1 if redeemed else 0}.
 */
const redeemWithinScript = redisScript(`
local n = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local redeemed = 0
if KEYS[2] and n <= tonumber(ARGV[2]) then
  if redis.call('SET', KEYS[2], '1', 'PX', ARGV[3], 'NX') then redeemed = 1 end
end
return {n, redeemed}
`);

/**
 * Redis spent-token store: `SET key 1 NX PX ttl` decides redemption in one command.
 * `counterPrefix` is the counter store's, so {@link SpentTokenStore.redeemWithin} counts on
 * the same keys as CounterStore.hit.
 */
export function redisSpentTokenStore(client: RedisClient, prefix: string, counterPrefix: string): SpentTokenStore {
  return {
    async redeemWithin(limit, tokenId, ttlMs) {
      const keys = [counterPrefix + limit.key];
      const args = [String(positiveTtl(limit.windowMs)), String(limit.max)];
      if (tokenId !== null) {
        keys.push(`${prefix}t:${tokenId}`);
        args.push(String(positiveTtl(ttlMs)));
      }
      const [hits, redeemed] = (await redeemWithinScript(client, { keys, arguments: args })) as [number, number];
      return { hits: Number(hits), redeemed: redeemed === 1 };
    },
    async redeem(tokenId, ttlMs) {
      const reply = await client.set(`${prefix}t:${tokenId}`, '1', {
        expiration: { type: 'PX', value: positiveTtl(ttlMs) },
        condition: 'NX',
      });
      return reply === 'OK';
    },
    async rememberVerdict(key, verdict, ttlMs) {
      await client.set(`${prefix}v:${key}`, JSON.stringify(verdict), {
        expiration: { type: 'PX', value: positiveTtl(ttlMs) },
        condition: 'NX',
      });
    },
    async recallVerdict(key) {
      return parseObject((await client.get(`${prefix}v:${key}`)) ?? undefined);
    },
  };
}

function parseObject(json: string | undefined): object | null {
  if (json === undefined) return null;
  try {
    const v: unknown = JSON.parse(json);
    return typeof v === 'object' && v !== null ? v : null;
  } catch {
    return null;
  }
}
