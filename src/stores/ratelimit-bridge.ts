import { createHash } from 'node:crypto';
import type { RedisClient } from './redis-client.ts';

interface ScriptDefinition {
  lua: string;
  numberOfKeys: number;
}

/**
 * koa-ratelimit's redis driver (async-ratelimiter) is written for ioredis: it calls
 * `db.defineCommand(name, {lua, numberOfKeys})` once and then `db[name](...keys, ...args)`.
 * This adapts the one node-redis client to that: EVALSHA, falling back to EVAL when the
 * server has not cached the script yet (after a restart, say).
 */
export function ioredisCommandBridge(client: RedisClient): Record<string, unknown> {
  const bridge: Record<string, unknown> = {
    defineCommand(name: string, { lua, numberOfKeys }: ScriptDefinition) {
      const sha = createHash('sha1').update(lua).digest('hex');
      bridge[name] = async (...args: (string | number)[]) => {
        const strings = args.map(String);
        const options = { keys: strings.slice(0, numberOfKeys), arguments: strings.slice(numberOfKeys) };
        try {
          return await client.evalSha(sha, options);
        } catch (err) {
          if (err instanceof Error && err.message.startsWith('NOSCRIPT')) return client.eval(lua, options);
          throw err;
        }
      };
    },
  };
  return bridge;
}
