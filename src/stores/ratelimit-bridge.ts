import { randomBytes } from 'node:crypto';
import type { RedisClient } from './redis-client.ts';
import { redisScript } from './redis-script.ts';

/**
 * async-ratelimiter's sliding log, with one change: each request is a member of its own.
 * The library adds a request as `ZADD key now now`, so two requests that read the same `now`
 * are one member and count once. Its `now` is the wall clock in milliseconds, a double whose
 * last bit is a quarter of a microsecond, and every process reads its own clock: requests to
 * several instances at once collide now and then, and a limit of 60 let a 61st through (seen
 * in CI, three processes on one Redis). Here the member is `now` followed by a per-process id
 * and a counter, the score stays `now`. Arguments and reply are the library's: KEYS[1] the
 * window's key; ARGV now (ms), duration (ms), max, peek ('1' or '0'), then the unique tail;
 * reply {remaining before this request, reset (unix seconds), max}.
 */
const SLIDING_LOG_LUA = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local duration = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
local peek = ARGV[4] == '1'
local member = ARGV[1] .. ':' .. ARGV[5]

redis.call('ZREMRANGEBYSCORE', key, 0, now - duration)
local count = redis.call('ZCARD', key)
local oldest = now
if count > 0 then
  oldest = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2])
end

local remaining = max - count
if remaining <= 0 or peek then
  return {remaining > 0 and remaining or 0, math.floor((oldest + duration) / 1000), max}
end

redis.call('ZADD', key, now, member)
redis.call('PEXPIRE', key, duration)
return {remaining, math.floor((oldest + duration) / 1000), max}
`;

const slidingLog = redisScript(SLIDING_LOG_LUA);

/** The library's command name and key count; anything else it defines is refused. */
const LIBRARY_COMMAND = { name: 'ratelimiter', numberOfKeys: 1 };

/**
 * koa-ratelimit's redis driver (async-ratelimiter) is written for ioredis: it calls
 * `db.defineCommand(name, {lua, numberOfKeys})` once and then `db[name](...keys, ...args)`.
 * This adapts the one node-redis client to that, with the sliding log above in place of the
 * library's script.
 */
export function ioredisCommandBridge(client: RedisClient): Record<string, unknown> {
  const processId = randomBytes(6).toString('base64url');
  let sequence = 0;
  const bridge: Record<string, unknown> = {
    defineCommand(name: string, { numberOfKeys }: { numberOfKeys: number }) {
      if (name !== LIBRARY_COMMAND.name || numberOfKeys !== LIBRARY_COMMAND.numberOfKeys) {
        throw new Error(`unexpected rate-limit command ${name}/${numberOfKeys}`);
      }
      bridge[name] = (key: string, ...args: (string | number)[]) => {
        sequence = (sequence + 1) % Number.MAX_SAFE_INTEGER;
        return slidingLog(client, { keys: [key], arguments: [...args.map(String), `${processId}:${sequence}`] });
      };
    },
  };
  return bridge;
}
