import { createHash } from 'node:crypto';
import type { RedisClient } from './redis-client.ts';

export interface ScriptCall {
  keys: string[];
  arguments: string[];
}

/**
 * A Lua script run by its SHA-1 (EVALSHA), falling back to sending it whole (EVAL) when the
 * server has not cached it yet (after a restart or SCRIPT FLUSH). EVAL on every call sends
 * the script's text each time and has Redis hash it each time.
 */
export function redisScript(lua: string): (client: RedisClient, call: ScriptCall) => Promise<unknown> {
  const sha = createHash('sha1').update(lua).digest('hex');
  return async (client, call) => {
    try {
      return await client.evalSha(sha, call);
    } catch (err) {
      if (err instanceof Error && err.message.startsWith('NOSCRIPT')) return client.eval(lua, call);
      throw err;
    }
  };
}
