/** What koa-ratelimit's memory driver keeps per window: `reset` is its end, in unix seconds. */
interface Window {
  reset?: number;
}

export interface WindowSweeperOptions {
  /** Beyond this many windows the oldest-started go, down to 1% below it. */
  maxEntries?: number;
  /** Windows examined per tick, resuming where the last tick stopped. */
  perTick?: number;
  /** Clock, unix ms. */
  now?: () => number;
}

/**
 * Keeps koa-ratelimit's memory Map (which never deletes a window) bounded without holding
 * the process: each tick examines the next `perTick` windows of one resumable pass (a Map
 * iterator stays valid while the map changes) and drops the ended ones, then trims the
 * oldest-started past `maxEntries`. A full pass every minute over windows from many
 * distinct addresses held the process for tens of milliseconds, and between passes nothing
 * bounded the Map.
 */
export function windowSweeper(windows: Map<string, unknown>, opts: WindowSweeperOptions = {}) {
  const maxEntries = opts.maxEntries ?? 200_000;
  const perTick = opts.perTick ?? 10_000;
  const now = opts.now ?? (() => Date.now());
  let cursor: MapIterator<[string, unknown]> | undefined;
  return {
    tick(): void {
      const nowSeconds = now() / 1000;
      for (let i = 0; i < perTick; i++) {
        cursor ??= windows.entries();
        const next = cursor.next();
        if (next.done) {
          cursor = undefined;
          break;
        }
        const reset = (next.value[1] as Window).reset;
        if (reset !== undefined && reset < nowSeconds) windows.delete(next.value[0]);
      }
      if (windows.size <= maxEntries) return;
      const lowWater = maxEntries - Math.max(1, Math.floor(maxEntries / 100));
      for (const key of windows.keys()) {
        if (windows.size <= lowWater) break;
        windows.delete(key);
      }
    },
  };
}
