/**
 * Bounded concurrency for analyses: a fixed number run, a bounded number wait, and the
 * rest are turned away at once with a retry hint.
 */

/** Thrown by {@link AnalysisPool.run} when both the running slots and the queue are full. */
export class SaturatedError extends Error {
  override name = 'SaturatedError';
  /** Suggested wait before retrying, whole seconds (>= 1). */
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number) {
    super(`The analyzer is busy; retry in ${retryAfterSeconds} s.`);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

interface Waiter {
  start: () => void;
}

/**
 * Runs at most `concurrency` tasks at a time with at most `maxQueue` waiting (FIFO).
 * Beyond that, `run()` rejects immediately with {@link SaturatedError}.
 */
export class AnalysisPool {
  readonly #concurrency: number;
  readonly #maxQueue: number;
  readonly #queue: Waiter[] = [];
  #active = 0;
  /** Moving average of task duration, ms; seeds the retry hint. */
  #averageMs = 5_000;

  constructor(concurrency: number, maxQueue: number) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be an integer >= 1');
    if (!Number.isInteger(maxQueue) || maxQueue < 0) throw new RangeError('maxQueue must be an integer >= 0');
    this.#concurrency = concurrency;
    this.#maxQueue = maxQueue;
  }

  /** Tasks running now. */
  get active(): number {
    return this.#active;
  }

  /** Tasks waiting for a slot. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Run `fn` when a slot is free; reject with SaturatedError if the queue is full too. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#active < this.#concurrency) return this.#start(fn);
    if (this.#queue.length >= this.#maxQueue) return Promise.reject(new SaturatedError(this.#retryAfter()));
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ start: () => void this.#start(fn).then(resolve, reject) });
    });
  }

  /** Seconds until a queued slot is likely free: the queue ahead drains `concurrency` at a time. */
  #retryAfter(): number {
    const rounds = Math.floor(this.#queue.length / this.#concurrency) + 1;
    return Math.max(1, Math.ceil((rounds * this.#averageMs) / 1000));
  }

  async #start<T>(fn: () => Promise<T>): Promise<T> {
    this.#active++;
    const started = performance.now();
    try {
      return await fn();
    } finally {
      this.#averageMs = this.#averageMs * 0.8 + (performance.now() - started) * 0.2;
      this.#active--;
      this.#queue.shift()?.start();
    }
  }
}
