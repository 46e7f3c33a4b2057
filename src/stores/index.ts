import type { Logger } from 'pino';
import { connectRedis, type RedisClient } from './redis-client.ts';
import { DEFAULT_REDIS_COMMAND_TIMEOUT_MS, watchRedis } from './redis-watchdog.ts';
import { windowSweeper } from './window-sweeper.ts';
import { ioredisCommandBridge } from './ratelimit-bridge.ts';
import { memoryChallengeStore, redisChallengeStore, type ChallengeStore } from './challenge-store.ts';
import { memorySpentTokenStore, redisSpentTokenStore, type SpentTokenStore } from './spent-token-store.ts';
import { memoryCounterStore, redisCounterStore, type CounterStore } from './counter-store.ts';

/**
 * Shared, short-lived state: rate-limit counters now, challenge state and spent tokens
 * later. Redis when REDIS_URL is set (several instances share it), process memory otherwise.
 */
export interface Stores {
  kind: 'redis' | 'memory';
  /** Prefix for every key this process writes (tests isolate themselves with it). */
  keyPrefix: string;
  /** The one Redis client, when kind is 'redis'. */
  redis?: RedisClient;
  /** What koa-ratelimit takes as `db`: a Map for its memory driver, an ioredis-like bridge for redis. */
  rateLimit: { driver: 'memory'; db: Map<string, unknown> } | { driver: 'redis'; db: Record<string, unknown> };
  /** Challenge state (v1 answers, attempts, proof-of-work puzzles), with TTLs. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one store for every challenge kind's state; each caller reads and writes its own state type
  challenges: ChallengeStore<any>;
  /** Exactly-once token redemption and idempotent siteverify verdicts. */
  spentTokens: SpentTokenStore;
  /** Request-rate counters for risk signals. */
  counters: CounterStore;
  /** Resolves when the store answers; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface StoreOptions {
  redisUrl?: string;
  keyPrefix?: string;
  log?: Logger;
  /** How long Redis may leave a command unanswered before its commands fail (redis-watchdog.ts). */
  redisCommandTimeoutMs?: number;
}

export async function openStores(opts: StoreOptions): Promise<Stores> {
  const keyPrefix = opts.keyPrefix ?? 'ac:';
  if (!opts.redisUrl) {
    const limits = new Map<string, unknown>();
    // koa-ratelimit's memory driver never deletes a window: drop ended ones, a slice a second.
    const sweeper = windowSweeper(limits);
    const sweep = setInterval(() => sweeper.tick(), 1000);
    sweep.unref();
    const counters = memoryCounterStore();
    return {
      kind: 'memory',
      keyPrefix,
      rateLimit: { driver: 'memory', db: limits },
      challenges: memoryChallengeStore(),
      spentTokens: memorySpentTokenStore(counters),
      counters,
      async ping() {},
      async close() {
        clearInterval(sweep);
      },
    };
  }
  const redis = await connectRedis(opts.redisUrl, opts.log);
  const stopWatchdog = watchRedis(redis, {
    timeoutMs: opts.redisCommandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
    log: opts.log,
  });
  return {
    kind: 'redis',
    keyPrefix,
    redis,
    rateLimit: { driver: 'redis', db: ioredisCommandBridge(redis) },
    challenges: redisChallengeStore(redis, `${keyPrefix}ch:`),
    spentTokens: redisSpentTokenStore(redis, `${keyPrefix}tok:`, `${keyPrefix}cnt:`),
    counters: redisCounterStore(redis, `${keyPrefix}cnt:`),
    async ping() {
      await redis.ping();
    },
    async close() {
      stopWatchdog();
      if (redis.isOpen) await redis.quit().catch(() => redis.destroy());
    },
  };
}
