import { TestClock } from 'pg-boss';

/**
 * pg-boss's TestClock kept at the pace of real time, so a service's queue works as it would,
 * with `skip` to jump over a wait the code under test makes on purpose (a retry's backoff, a
 * lapsed heartbeat) instead of sitting through it. Only the queue's time moves: the service's
 * own deadlines (fetches, renders) stay real.
 */
export interface DrivenClock {
  readonly clock: TestClock;
  /** Moves the queue's time on by `ms`, firing its timers in order, a second at a time. */
  skip(ms: number): Promise<void>;
  /** Stops driving; the clock stands still from here (call after the services are closed). */
  stop(): Promise<void>;
}

export function driveClock(stepMs = 50): DrivenClock {
  const clock = new TestClock(Date.now());
  let busy: Promise<void> = Promise.resolve();
  let last = Date.now();
  let stopped = false;
  /** Runs ticks one after another: a tick waits until pg-boss has no statement in flight. */
  const serial = (fn: () => Promise<void>) => (busy = busy.then(fn, fn));
  const timer = setInterval(() => {
    void serial(async () => {
      if (stopped) return;
      const now = Date.now();
      const elapsed = now - last;
      last = now;
      if (elapsed > 0) await clock.tick(elapsed);
    });
  }, stepMs);
  timer.unref();
  return {
    clock,
    skip: (ms) =>
      serial(async () => {
        for (let left = ms; left > 0 && !stopped; left -= 1000) await clock.tick(Math.min(1000, left));
      }),
    async stop() {
      stopped = true;
      clearInterval(timer);
      await busy;
    },
  };
}
