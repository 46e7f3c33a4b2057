import { SweepPass, trimOldest } from './map-bounds.ts';

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

/** koa-ratelimit keeps a window until it ends (compared in seconds, as it compares). */
const ended = (window: unknown, nowSeconds: number) => {
  const reset = (window as Window).reset;
  return reset !== undefined && reset < nowSeconds;
};

/**
 * Keeps koa-ratelimit's memory Map (which never deletes a window) bounded without holding
 * the process: each tick examines the next `perTick` windows of one resumable pass
 * (map-bounds.ts) and drops the ended ones, then trims the oldest-started past `maxEntries`.
 * A full pass every minute over windows from many distinct addresses held the process for
 * tens of milliseconds, and between passes nothing bounded the Map.
 */
export function windowSweeper(windows: Map<string, unknown>, opts: WindowSweeperOptions = {}) {
  const maxEntries = opts.maxEntries ?? 200_000;
  const perTick = opts.perTick ?? 10_000;
  const now = opts.now ?? (() => Date.now());
  const pass = new SweepPass(windows);
  return {
    tick(): void {
      pass.step(perTick, ended, now() / 1000);
      trimOldest(windows, maxEntries);
    },
  };
}
