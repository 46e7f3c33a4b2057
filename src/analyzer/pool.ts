/**
 * Bounded, fair concurrency for analyses: a fixed number run and a bounded number wait, and
 * each tenant (an API key's account) has its own cap on both, so one tenant can fill its own
 * share and never another's. Free slots go to the waiting tenants in turn (round robin), not
 * first come first served, so a tenant with many queued tasks does not delay another's one.
 * A wait is bounded: by `maxWaitMs`, and by the caller's abort signal, which takes the waiter
 * out of the queue at once (a client that went away holds no place).
 */

/** Thrown when every running slot and the whole queue are taken (by several tenants). */
export class SaturatedError extends Error {
  override name = 'SaturatedError';
  /** Suggested wait before retrying, whole seconds (>= 1). */
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number, message = `The analyzer is busy; retry in ${retryAfterSeconds} s.`) {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Thrown when the tenant itself has its share running and waiting: its own limit, not the service's. */
export class TenantLimitError extends SaturatedError {
  override name = 'TenantLimitError';
  /** The tenant's running cap and waiting cap. */
  readonly limits: { running: number; queued: number };

  constructor(
    retryAfterSeconds: number,
    limits: { running: number; queued: number },
    message = `At most ${limits.running} analyses may run and ${limits.queued} wait for one API key.`,
  ) {
    super(retryAfterSeconds, message);
    this.limits = limits;
  }
}

/** Sizes of a {@link FairPool}. */
export interface FairPoolLimits {
  /** Tasks running at once, all tenants together. */
  concurrency: number;
  /** Tasks waiting, all tenants together; beyond it {@link SaturatedError}. */
  maxQueue: number;
  /** Tasks one tenant may have running. */
  perTenantConcurrency: number;
  /** Tasks one tenant may have waiting; beyond it {@link TenantLimitError}. */
  perTenantQueue: number;
  /**
   * Longest wait for a slot, ms. Past it the task leaves the queue unstarted: with
   * {@link TenantLimitError} when its tenant's own running share held it back, else
   * {@link SaturatedError}. Unset: a task waits until a slot frees (or its signal aborts).
   */
  maxWaitMs?: number;
}

/** A waiting task: `start` runs it in the slot it was given. */
type Waiter = () => void;

interface Tenant {
  running: number;
  waiting: Waiter[];
}

/** Runs tasks under {@link FairPoolLimits}; `run` rejects at once when a bound is reached. */
export class FairPool {
  readonly #limits: FairPoolLimits;
  readonly #tenants = new Map<string, Tenant>();
  /** Tenants with waiting tasks, in the order they are served next. */
  readonly #turns: string[] = [];
  #active = 0;
  #queued = 0;
  /** Moving average of task duration, ms; seeds the retry hint. */
  #averageMs = 5_000;

  constructor(limits: FairPoolLimits) {
    for (const [name, value] of Object.entries(limits)) {
      if (name === 'maxWaitMs' && value === undefined) continue;
      const min = name === 'maxQueue' || name === 'perTenantQueue' ? 0 : 1;
      if (!Number.isInteger(value) || value < min) throw new RangeError(`${name} must be an integer >= ${min}`);
    }
    this.#limits = limits;
  }

  /** Tasks running now. */
  get active(): number {
    return this.#active;
  }

  /** Tasks waiting for a slot. */
  get queued(): number {
    return this.#queued;
  }

  /**
   * Run `fn` for `tenant` when a slot is free to it; reject at once when its share or the queue
   * is full. A task still waiting when `signal` aborts leaves the queue and rejects with the
   * signal's reason; one waiting longer than `maxWaitMs` leaves it too (see
   * {@link FairPoolLimits.maxWaitMs}). Once started, `fn` owns its slot until it settles.
   */
  run<T>(tenant: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const t = this.#tenants.get(tenant) ?? { running: 0, waiting: [] };
    const { perTenantConcurrency, perTenantQueue, concurrency, maxQueue } = this.#limits;
    if (t.running < perTenantConcurrency && this.#active < concurrency && t.waiting.length === 0) {
      this.#tenants.set(tenant, t);
      return this.#start(tenant, t, fn);
    }
    if (t.waiting.length >= perTenantQueue) {
      return Promise.reject(
        new TenantLimitError(this.#retryAfter(t.waiting.length, perTenantConcurrency), {
          running: perTenantConcurrency,
          queued: perTenantQueue,
        }),
      );
    }
    if (this.#queued >= maxQueue)
      return Promise.reject(new SaturatedError(this.#retryAfter(this.#queued, concurrency)));
    this.#tenants.set(tenant, t);
    this.#queued++;
    if (t.waiting.length === 0) this.#turns.push(tenant);
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = () => {
        settle();
        void this.#start(tenant, t, fn).then(resolve, reject);
      };
      const leave = (reason: Error) => {
        if (!this.#leave(tenant, t, waiter)) return;
        settle();
        reject(reason);
      };
      const onAbort = () => leave(signal!.reason as Error);
      if (this.#limits.maxWaitMs !== undefined) {
        timer = setTimeout(() => leave(this.#waitedTooLong(t)), this.#limits.maxWaitMs);
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      t.waiting.push(waiter);
    });
  }

  /** Takes `waiter` out of the queue; false when it has already been given a slot. */
  #leave(name: string, tenant: Tenant, waiter: Waiter): boolean {
    const at = tenant.waiting.indexOf(waiter);
    if (at < 0) return false;
    tenant.waiting.splice(at, 1);
    this.#queued--;
    if (tenant.waiting.length === 0) {
      const turn = this.#turns.indexOf(name);
      if (turn >= 0) this.#turns.splice(turn, 1);
      if (tenant.running === 0) this.#tenants.delete(name);
    }
    return true;
  }

  /** The error of a task that waited `maxWaitMs`: its tenant's own limit when its share held it back. */
  #waitedTooLong(tenant: Tenant): SaturatedError {
    const { perTenantConcurrency, perTenantQueue, concurrency, maxWaitMs = 0 } = this.#limits;
    const seconds = Math.max(1, Math.ceil(maxWaitMs / 1000));
    if (tenant.running >= perTenantConcurrency) {
      return new TenantLimitError(
        this.#retryAfter(tenant.waiting.length, perTenantConcurrency),
        { running: perTenantConcurrency, queued: perTenantQueue },
        `At most ${perTenantConcurrency} analyses may run at once for one API key; none of its slots came free within ${seconds} s.`,
      );
    }
    return new SaturatedError(
      this.#retryAfter(this.#queued, concurrency),
      `The analyzer is busy: no slot came free within ${seconds} s; retry shortly.`,
    );
  }

  /** Seconds until a slot is likely free: the tasks ahead drain `width` at a time. */
  #retryAfter(ahead: number, width: number): number {
    const rounds = Math.floor(ahead / width) + 1;
    return Math.max(1, Math.ceil((rounds * this.#averageMs) / 1000));
  }

  async #start<T>(name: string, tenant: Tenant, fn: () => Promise<T>): Promise<T> {
    this.#active++;
    tenant.running++;
    const started = performance.now();
    try {
      return await fn();
    } finally {
      this.#averageMs = this.#averageMs * 0.8 + (performance.now() - started) * 0.2;
      this.#active--;
      tenant.running--;
      if (tenant.running === 0 && tenant.waiting.length === 0) this.#tenants.delete(name);
      this.#dispatch();
    }
  }

  /** Give free slots to waiting tenants in turn, skipping those at their running cap. */
  #dispatch(): void {
    let looked = 0;
    while (this.#active < this.#limits.concurrency && looked < this.#turns.length) {
      const name = this.#turns.shift()!;
      const tenant = this.#tenants.get(name)!;
      if (tenant.running >= this.#limits.perTenantConcurrency) {
        this.#turns.push(name);
        looked++;
        continue;
      }
      looked = 0;
      const next = tenant.waiting.shift()!;
      this.#queued--;
      if (tenant.waiting.length > 0) this.#turns.push(name);
      next();
    }
  }
}
