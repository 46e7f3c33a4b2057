import type { Logger } from 'pino';
import type { RedisClient } from './redis-client.ts';

/** The default of REDIS_COMMAND_TIMEOUT_MS (src/config.ts) and of stores opened without it. */
export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 5000;

export interface RedisWatchdogOptions {
  /** How long Redis may leave a command unanswered before its commands fail. */
  timeoutMs: number;
  log?: Logger;
}

/**
 * Fails the commands of a Redis that stopped answering, with one timer for the client.
 *
 * node-redis's own command timeout arms `AbortSignal.timeout` for every command: a signal
 * and a timer that cannot be cancelled, so each lives its full 5 s after its reply. At
 * 10,000 commands a second that is 50,000 live timers in the old generation, each promoted
 * and collected in full collections (figures in bench/README.md). So connectRedis turns that timeout off and this
 * watchdog stands in for it.
 *
 * Every tick it sends a PING, unless one is still out. Redis answers in order, so a PING
 * unanswered for `timeoutMs` means every command sent before it is unanswered too: the
 * connection is closed, which rejects every waiting command at once (callers fail closed),
 * and opened again. A command therefore fails at most `timeoutMs` plus one tick after Redis
 * stalls, as it would have with a per-command timeout of that length. While the client is
 * closed or reconnecting, commands fail at once (`disableOfflineQueue`); a client not ready
 * for `timeoutMs` (a handshake with a frozen server waits forever) is connected again.
 */
export function watchRedis(client: RedisClient, opts: RedisWatchdogOptions): () => void {
  const tickMs = Math.max(25, Math.min(1000, Math.floor(opts.timeoutMs / 4)));
  /** When the outstanding PING was sent; 0 when none is out. */
  let probeSentAt = 0;
  /** Since when the open client has not been ready; 0 while it is. */
  let notReadySince = 0;
  let reopening = false;
  let stopped = false;
  let lastLogged = 0;
  const warn = (obj: object, msg: string) => {
    // An outage repeats this every tick; log at most once every 5 s.
    if (Date.now() - lastLogged < 5000) return;
    lastLogged = Date.now();
    opts.log?.warn(obj, msg);
  };

  const reopen = () => {
    if (reopening || stopped) return;
    reopening = true;
    client
      .connect()
      .catch((err: unknown) => warn({ err }, 'redis: connecting again failed; trying again'))
      .finally(() => {
        reopening = false;
      });
  };

  /** Fails every waiting command (closing the connection rejects them) and connects again. */
  const restart = (why: string) => {
    warn({ timeoutMs: opts.timeoutMs }, why);
    probeSentAt = 0;
    notReadySince = 0;
    client.destroy();
    reopen();
  };

  const tick = () => {
    if (stopped) return;
    if (!client.isOpen) {
      // Closed by a stall (or a connection attempt that failed): open it again.
      probeSentAt = 0;
      notReadySince = 0;
      reopen();
      return;
    }
    const now = Date.now();
    if (!client.isReady) {
      // Reconnecting by itself (commands fail at once meanwhile), or stuck in the handshake of
      // a connection to a frozen server, which nothing else would time out.
      if (notReadySince === 0) notReadySince = now;
      else if (now - notReadySince >= opts.timeoutMs) restart('redis not ready in time; connecting again');
      return;
    }
    notReadySince = 0;
    if (probeSentAt === 0) {
      probeSentAt = now;
      const sentAt = now;
      const settle = () => {
        if (probeSentAt === sentAt) probeSentAt = 0;
      };
      client.ping().then(settle, settle);
      return;
    }
    if (now - probeSentAt >= opts.timeoutMs)
      restart('redis did not answer in time; failing its commands and reconnecting');
  };

  const timer = setInterval(tick, tickMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
