import { checkPhase } from '../check-phase.ts';
import type { RedisClient } from './redis-client.ts';
import { positiveTtl, TtlMap } from './challenge-store.ts';

/**
 * Exactly-once redemption of sealed tokens, and remembered siteverify verdicts for
 * idempotency keys. Keys are `prefix + 't:' + tokenId` and `prefix + 'v:' + key`.
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
}

/**
 * Process-memory spent-token store; `now` is injectable for fake time.
 *
 * Each call waits for the check phase before it touches the map, as a Redis reply arrives
 * in a later turn. Under load, siteverify requests read in one poll then finish together:
 * the first half of each (parsing, validation, decryption) runs over the batch, then the
 * second (redemption, response). bench/siteverify measured 25-33% more requests per second
 * and a third of the p99 this way on memory stores (same process, alternating runs); the
 * map step itself stays synchronous after the wait, so redemption is still exactly once.
 */
export function memorySpentTokenStore(prefix: string, now: () => number = () => Date.now()): SpentTokenStore {
  // A generous bound: evicting a live spent mark would allow a replay, so it must not be hit in
  // normal operation (1M marks ≈ 3,300 redemptions/s sustained over the 5-minute token life).
  const map = new TtlMap<string>({ now, maxEntries: 1_000_000 });
  return {
    async redeem(tokenId, ttlMs) {
      await checkPhase();
      return map.setIfAbsent(`${prefix}t:${tokenId}`, '1', positiveTtl(ttlMs));
    },
    async rememberVerdict(key, verdict, ttlMs) {
      await checkPhase();
      map.setIfAbsent(`${prefix}v:${key}`, JSON.stringify(verdict), positiveTtl(ttlMs));
    },
    async recallVerdict(key) {
      await checkPhase();
      return parseObject(map.get(`${prefix}v:${key}`));
    },
  };
}

/** Redis spent-token store: `SET key 1 NX PX ttl` decides redemption in one command. */
export function redisSpentTokenStore(client: RedisClient, prefix: string): SpentTokenStore {
  return {
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
