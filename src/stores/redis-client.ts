import type { RedisClientType } from 'redis';
import type { Logger } from 'pino';

export type RedisClient = RedisClientType;

/**
 * Opens the process's one Redis client. Commands fail at once while disconnected
 * (`disableOfflineQueue`) instead of queueing, so a Redis outage turns into fast errors the
 * callers can map (fail closed), never into hung requests. It reconnects by itself.
 *
 * No per-command timeout: node-redis arms an uncancellable `AbortSignal.timeout` for each
 * command, which cost a third of siteverify's CPU. A Redis that stays connected but stops
 * answering is caught by one watchdog per client instead (redis-watchdog.ts, started by
 * openStores); until it trips, the waiting commands are bounded by `commandsQueueMaxLength`
 * (past it a command fails at once).
 */
export async function connectRedis(url: string, log?: Logger, connectTimeoutMs = 5000): Promise<RedisClient> {
  // Loaded only when Redis is configured: a process on memory stores never loads the client.
  const { createClient } = await import('redis');
  const client = createClient({
    url,
    disableOfflineQueue: true,
    commandOptions: { timeout: 0 },
    commandsQueueMaxLength: 100_000,
    socket: {
      connectTimeout: connectTimeoutMs,
      reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 2000),
    },
  }) as RedisClient;
  let lastLogged = 0;
  client.on('error', (err: Error) => {
    // Reconnect errors repeat; log at most once every 5 s.
    if (Date.now() - lastLogged > 5000) {
      lastLogged = Date.now();
      log?.warn({ err: err.message }, 'redis error');
    }
  });
  const connecting = client.connect();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Redis at ${redact(url)} did not answer within ${connectTimeoutMs} ms`)),
      connectTimeoutMs,
    );
  });
  try {
    await Promise.race([connecting, timeout]);
  } catch (err) {
    client.destroy();
    throw err;
  } finally {
    clearTimeout(timer);
  }
  return client;
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
