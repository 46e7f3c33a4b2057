/**
 * FairPool: bounded concurrency, bounded queue, immediate SaturatedError beyond, and each
 * tenant's own share (TenantLimitError) with free slots handed out in turn.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FairPool, SaturatedError, TenantLimitError } from '../../src/analyzer/pool.ts';

/** A pool where one tenant may use everything (the plain bounded pool). */
class AnalysisPool extends FairPool {
  constructor(concurrency: number, maxQueue: number) {
    super({
      concurrency,
      maxQueue,
      perTenantConcurrency: Math.max(1, concurrency),
      perTenantQueue: Math.max(0, maxQueue),
    });
  }
  override run<T>(fn: (() => Promise<T>) | string, more?: () => Promise<T>): Promise<T> {
    return typeof fn === 'string' ? super.run(fn, more!) : super.run('one', fn);
  }
}

/** A task that finishes when its `release` is called. */
function gate<T>(value: T): { task: () => Promise<T>; release: () => void; started: () => boolean } {
  let release!: () => void;
  let started = false;
  const done = new Promise<void>((resolve) => (release = resolve));
  return {
    task: async () => {
      started = true;
      await done;
      return value;
    },
    release: () => release(),
    started: () => started,
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('AnalysisPool', () => {
  it('runs at most `concurrency` tasks and queues the rest in order', async () => {
    const pool = new AnalysisPool(2, 10);
    const gates = [gate(0), gate(1), gate(2), gate(3)];
    const results = gates.map((g) => pool.run(g.task));
    await tick();
    expect(gates.map((g) => g.started())).toEqual([true, true, false, false]);
    expect([pool.active, pool.queued]).toEqual([2, 2]);
    gates[1].release();
    await tick();
    expect(gates.map((g) => g.started())).toEqual([true, true, true, false]);
    expect([pool.active, pool.queued]).toEqual([2, 1]);
    for (const g of gates) g.release();
    expect(await Promise.all(results)).toEqual([0, 1, 2, 3]);
    expect([pool.active, pool.queued]).toEqual([0, 0]);
  });

  it('never exceeds the limit under load', async () => {
    const pool = new AnalysisPool(3, 100);
    let running = 0;
    let peak = 0;
    const task = async (): Promise<void> => {
      running++;
      peak = Math.max(peak, running);
      for (let i = 0; i < 3; i++) await tick();
      running--;
    };
    await Promise.all(Array.from({ length: 40 }, () => pool.run(task)));
    expect(peak).toBe(3);
  });

  it('rejects at once with SaturatedError when running and queued slots are full', async () => {
    const pool = new AnalysisPool(1, 1);
    const a = gate('a');
    const b = gate('b');
    const pa = pool.run(a.task);
    const pb = pool.run(b.task);
    const err = await pool.run(async () => 'c').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SaturatedError);
    expect((err as SaturatedError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(Number.isInteger((err as SaturatedError).retryAfterSeconds)).toBe(true);
    expect([pool.active, pool.queued]).toEqual([1, 1]);
    a.release();
    b.release();
    expect(await Promise.all([pa, pb])).toEqual(['a', 'b']);
    expect(await pool.run(async () => 'd')).toBe('d');
  });

  it('maxQueue 0 means no waiting at all', async () => {
    const pool = new AnalysisPool(1, 0);
    const a = gate(1);
    const pa = pool.run(a.task);
    await expect(pool.run(async () => 2)).rejects.toBeInstanceOf(SaturatedError);
    a.release();
    await pa;
  });

  it('frees the slot when a task fails', async () => {
    const pool = new AnalysisPool(1, 1);
    const failing = pool.run(async () => {
      throw new Error('boom');
    });
    const next = pool.run(async () => 'ok');
    await expect(failing).rejects.toThrow('boom');
    expect(await next).toBe('ok');
    expect(pool.active).toBe(0);
  });

  it('validates its arguments', () => {
    expect(() => new AnalysisPool(0, 1)).toThrow(RangeError);
    expect(() => new AnalysisPool(1, -1)).toThrow(RangeError);
  });
});

describe('FairPool shares', () => {
  const limits = { concurrency: 4, maxQueue: 20, perTenantConcurrency: 2, perTenantQueue: 3 };

  it('one tenant gets its running and waiting share, then TenantLimitError; another still runs at once', async () => {
    const pool = new FairPool(limits);
    const gates = Array.from({ length: 5 }, (_, i) => gate(i));
    const mine = gates.map((g) => pool.run('a', g.task));
    const over = await pool.run('a', async () => 'x').catch((e: unknown) => e);
    expect(over).toBeInstanceOf(TenantLimitError);
    expect((over as TenantLimitError).limits).toEqual({ running: 2, queued: 3 });
    expect((over as Error).message).toMatch(/At most 2 analyses may run and 3 wait/);
    await tick();
    expect(gates.map((g) => g.started())).toEqual([true, true, false, false, false]);
    const other = gate('b');
    const theirs = pool.run('b', other.task);
    await tick();
    expect(other.started()).toBe(true);
    other.release();
    expect(await theirs).toBe('b');
    for (const g of gates) g.release();
    expect(await Promise.all(mine)).toEqual([0, 1, 2, 3, 4]);
  });

  it('hands free slots to waiting tenants in turn, not in arrival order', async () => {
    const pool = new FairPool({ concurrency: 1, maxQueue: 20, perTenantConcurrency: 1, perTenantQueue: 10 });
    const order: string[] = [];
    const first = gate('first');
    const running = pool.run('a', first.task);
    const tasks = [
      ...['a1', 'a2', 'a3'].map((n) => pool.run('a', async () => void order.push(n))),
      pool.run('b', async () => void order.push('b1')),
      pool.run('c', async () => void order.push('c1')),
    ];
    first.release();
    await running;
    await Promise.all(tasks);
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'a3']);
  });

  it('the whole queue full of several tenants is SaturatedError, not a tenant limit', async () => {
    const pool = new FairPool({ concurrency: 1, maxQueue: 2, perTenantConcurrency: 1, perTenantQueue: 1 });
    const g = gate(0);
    const held = pool.run('a', g.task);
    const queued = [pool.run('b', async () => 1), pool.run('c', async () => 2)];
    const err = await pool.run('d', async () => 3).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SaturatedError);
    expect(err).not.toBeInstanceOf(TenantLimitError);
    g.release();
    await Promise.all([held, ...queued]);
  });
});

describe('FairPool waits are bounded (issue 40)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a task waiting maxWaitMs behind its own share leaves the queue with TenantLimitError', async () => {
    vi.useFakeTimers();
    const pool = new FairPool({
      concurrency: 4,
      maxQueue: 20,
      perTenantConcurrency: 1,
      perTenantQueue: 3,
      maxWaitMs: 15_000,
    });
    const held = gate('held');
    const running = pool.run('a', held.task);
    let started = false;
    const waiting = pool.run('a', async () => {
      started = true;
    });
    const outcome = waiting.catch((e: unknown) => e);
    expect([pool.active, pool.queued]).toEqual([1, 1]);
    await vi.advanceTimersByTimeAsync(14_999);
    expect(pool.queued).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    const err = await outcome;
    expect(err).toBeInstanceOf(TenantLimitError);
    expect((err as Error).message).toMatch(/none of its slots came free within 15 s/);
    expect((err as TenantLimitError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect([pool.active, pool.queued]).toEqual([1, 0]);
    // The slot it waited for, once free, goes to the next task, never to the one that left.
    held.release();
    await running;
    expect(started).toBe(false);
    expect(await pool.run('a', async () => 'next')).toBe('next');
    expect([pool.active, pool.queued]).toEqual([0, 0]);
  });

  it('a task held back by other tenants waiting maxWaitMs gets SaturatedError, not a tenant limit', async () => {
    vi.useFakeTimers();
    const pool = new FairPool({
      concurrency: 1,
      maxQueue: 5,
      perTenantConcurrency: 1,
      perTenantQueue: 5,
      maxWaitMs: 500,
    });
    const held = gate(0);
    const running = pool.run('a', held.task);
    const outcome = pool.run('b', async () => 1).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(500);
    const err = await outcome;
    expect(err).toBeInstanceOf(SaturatedError);
    expect(err).not.toBeInstanceOf(TenantLimitError);
    held.release();
    await running;
  });

  it('a waiter whose signal aborts leaves the queue at once, with the signal’s reason; the others keep their turn', async () => {
    vi.useFakeTimers();
    const pool = new FairPool({ concurrency: 1, maxQueue: 5, perTenantConcurrency: 1, perTenantQueue: 5 });
    const held = gate(0);
    const running = pool.run('a', held.task);
    const gone = new AbortController();
    let abandonedStarted = false;
    const abandoned = pool
      .run(
        'b',
        async () => {
          abandonedStarted = true;
        },
        gone.signal,
      )
      .catch((e: unknown) => e);
    const kept = pool.run('c', async () => 'c');
    expect(pool.queued).toBe(2);
    gone.abort(new Error('client went away'));
    expect(((await abandoned) as Error).message).toBe('client went away');
    expect(pool.queued).toBe(1);
    held.release();
    expect(await kept).toBe('c');
    await running;
    expect(abandonedStarted).toBe(false);
    expect([pool.active, pool.queued]).toEqual([0, 0]);
    // An already aborted signal never queues.
    await expect(pool.run('d', async () => 1, AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
    // Without maxWaitMs a waiter waits as long as it takes.
    const longer = gate(1);
    const first = pool.run('a', longer.task);
    const second = pool.run('a', async () => 2);
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(pool.queued).toBe(1);
    longer.release();
    expect(await Promise.all([first, second])).toEqual([1, 2]);
  });

  it('refuses a maxWaitMs below 1', () => {
    expect(
      () => new FairPool({ concurrency: 1, maxQueue: 1, perTenantConcurrency: 1, perTenantQueue: 1, maxWaitMs: 0 }),
    ).toThrow(RangeError);
  });
});
