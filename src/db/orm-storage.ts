import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * MikroORM keeps four AsyncLocalStorages (inside a flush, a transaction's context, a request
 * context, raw SQL fragments of a query) and enters each only for the length of one operation,
 * with `run()`. On Node 20 an AsyncLocalStorage that has run once keeps the process's async
 * hooks on for good, so after the first write every promise and every socket, timer and tick of
 * every request pays an init hook: 22 µs of a 136 µs siteverify request that touches no table
 * (bench/siteverify.ts, the service measured with and without them).
 *
 * This turns each of MikroORM's storages off again (`disable()`) once its last `run()` has
 * settled, and `run()` turns it on as before, so the hooks are on only while the ORM is inside
 * an operation. Inside a run nothing changes: the storage stays on until every overlapping run of
 * it has settled. Outside all runs `getStore()` answers undefined, as it should there (Node's
 * own would answer a value copied onto resources created inside a run, such as a pooled
 * connection's socket). A storage that is ever entered with `enterWith()` (MikroORM's request
 * context, which this service does not use) is left on from then on.
 *
 * Only storages whose first `run()` comes from MikroORM's own code are managed; every other
 * AsyncLocalStorage keeps Node's behaviour. Installed by initORM before the ORM can run anything.
 */

interface RunState {
  /** Runs entered and not settled yet. */
  active: number;
  /** Entered with enterWith(): never turned off. */
  pinned: boolean;
}

const managed = new WeakMap<AsyncLocalStorage<unknown>, RunState | null>();
let installed = false;

/** Whether the caller of `run()` is MikroORM (the stack frame above the patched method). */
function calledFromOrm(): boolean {
  const frames = new Error().stack?.split('\n') ?? [];
  // [0] "Error", [1] calledFromOrm, [2] the patched run, [3] its caller.
  return /[\\/]@mikro-orm[\\/]/.test(frames[3] ?? '');
}

function settle(storage: AsyncLocalStorage<unknown>, state: RunState): void {
  state.active--;
  if (state.active === 0 && !state.pinned) storage.disable();
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** Installs the scoping above (once per process). */
export function scopeOrmStorages(): void {
  if (installed) return;
  installed = true;
  const proto: AsyncLocalStorage<unknown> = AsyncLocalStorage.prototype;
  // Node's own methods, called with each storage as `this`.
  const run = Reflect.get(proto, 'run') as (this: AsyncLocalStorage<unknown>, ...args: unknown[]) => unknown;
  const enterWith = Reflect.get<AsyncLocalStorage<unknown>, 'enterWith'>(proto, 'enterWith');

  proto.run = function scopedRun<R>(
    this: AsyncLocalStorage<unknown>,
    store: unknown,
    callback: (...args: unknown[]) => R,
    ...args: unknown[]
  ): R {
    let state = managed.get(this);
    if (state === undefined) {
      state = calledFromOrm() ? { active: 0, pinned: false } : null;
      managed.set(this, state);
    }
    if (!state) return run.call(this, store, callback, ...args) as R;
    const runState = state;
    runState.active++;
    let result: R;
    try {
      result = run.call(this, store, callback, ...args) as R;
    } catch (err) {
      settle(this, runState);
      throw err;
    }
    if (isThenable(result)) {
      const done = () => settle(this, runState);
      result.then(done, done);
    } else {
      settle(this, runState);
    }
    return result;
  };

  proto.enterWith = function scopedEnterWith(this: AsyncLocalStorage<unknown>, store: unknown): void {
    const state = managed.get(this);
    if (state) state.pinned = true;
    else if (state === undefined && calledFromOrm()) managed.set(this, { active: 0, pinned: true });
    enterWith.call(this, store);
  };
}

/** How a storage is managed: its runs, null if it is not MikroORM's, undefined before its first run. */
export function ormStorageRuns(storage: AsyncLocalStorage<unknown>): Readonly<RunState> | null | undefined {
  return managed.get(storage);
}
