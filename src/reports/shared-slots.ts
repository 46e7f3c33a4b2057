/**
 * Each API key's share of the analyzer (ANALYZER_KEY_CONCURRENCY analyses at once) held across
 * every instance. A slot is a row of `analyzer_slots`, leased in the database every instance
 * shares by the analysis running in it: taking one is one statement, giving it back another,
 * and the analysis itself stays in the instance that received it (no queue hop, whose polling
 * would cost every report half a second or more). A lease runs out unless renewed, so the slots
 * of an instance stopped mid-analysis free themselves. One code path on PostgreSQL and PGlite.
 */
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { TenantLimitError } from '../analyzer/pool.ts';

/** How the slots are sized and how long an analysis waits for one. */
export interface SharedSlotSettings {
  /** Slots per API key's account, all instances together (ANALYZER_KEY_CONCURRENCY). */
  perTenant: number;
  /** Analyses one account may have waiting in an instance (ANALYZER_KEY_QUEUE), for the error. */
  queued: number;
  /** How long an analysis waits for a slot held elsewhere before it fails (ANALYZER_KEY_WAIT_MS). */
  waitMs: number;
  /** A lease's length, seconds; renewed every third of it while its analysis runs (default 30). */
  leaseSeconds?: number;
}

/** No slot of the account came free within `waitMs`: its analyses elsewhere held them all. */
export class ShareWaitTimeout extends TenantLimitError {
  override name = 'ShareWaitTimeout';

  constructor(waitMs: number, limits: { running: number; queued: number }) {
    super(Math.max(1, Math.ceil(waitMs / 1000)), limits);
    this.message = `At most ${limits.running} analyses may run at once for one API key, on every instance together; none of its slots came free within ${Math.ceil(waitMs / 1000)} s.`;
  }
}

/**
 * A slot held by one analysis; {@link release} gives it back (once; later calls do nothing). It
 * never rejects: a lease the database could not delete runs out by itself.
 */
export interface SlotLease {
  readonly slot: number;
  release(): Promise<void>;
}

/** The account slots of every instance. */
export interface SharedSlots {
  /**
   * Takes one of `tenant`'s slots, waiting (at most `waitMs`, the settings' unless `opts` says
   * less) while all are held, here or on another instance. Rejects with
   * {@link ShareWaitTimeout} when none came free in time, and with `opts.signal`'s reason as
   * soon as it aborts.
   */
  acquire(tenant: string, opts?: { signal?: AbortSignal; waitMs?: number }): Promise<SlotLease>;
  /** Frees every lease: at the start of the embedded database, which one process owns. */
  clear(): Promise<void>;
}

/** Polls for a slot held elsewhere after 20 ms, doubling up to this (plus or minus half). */
const MAX_POLL_MS = 250;

/** Slot leases in `analyzer_slots` (migration Migration20261126130000) of `orm`'s database. */
export function databaseSlots(orm: MikroORM, settings: SharedSlotSettings): SharedSlots {
  const leaseSeconds = settings.leaseSeconds ?? 30;
  const limits = { running: settings.perTenant, queued: settings.queued };
  const execute = <T extends Array<Record<string, unknown>>>(sql: string, params: unknown[]) =>
    orm.em.getConnection().execute<T>(sql, params);
  /** Wakes this instance's waiters of a tenant when one of its leases here is given back. */
  const waiters = new Map<string, Set<() => void>>();

  /**
   * Deletes `holder`'s lease. When the database does not answer (a restart, a dropped
   * connection), tries again every second until it does or the lease has run out: a lease its
   * analysis gave back must not hold the account's slot for the rest of its term, where every
   * later analysis of the account would wait for it.
   */
  const forget = async (tenant: string, holder: string): Promise<void> => {
    const until = performance.now() + leaseSeconds * 1000;
    for (;;) {
      try {
        await execute('delete from analyzer_slots where tenant = ? and holder = ?', [tenant, holder]);
        return;
      } catch {
        if (performance.now() + 1000 >= until) return; // it runs out by itself now
        await new Promise((r) => setTimeout(r, 1000).unref());
      }
    }
  };

  const take = async (tenant: string): Promise<SlotLease | undefined> => {
    const holder = randomUUID();
    // A free slot, chosen at random so that instances asking at once rarely pick the same one;
    // when another took it meanwhile the conflict leaves its lease alone and nothing comes back.
    // A statement that failed may still have taken one (its answer lost with the connection):
    // that lease is forgotten as a given-back one is.
    const rows = await execute<Array<{ slot: number }>>(
      `insert into analyzer_slots (tenant, slot, holder, expires_at)
       select ?, s.slot, ?, now() + ?::int * interval '1 second'
         from generate_series(0, ?::int - 1) as s(slot)
        where not exists (select 1 from analyzer_slots a where a.tenant = ? and a.slot = s.slot and a.expires_at > now())
        order by random() limit 1
       on conflict (tenant, slot) do update set holder = excluded.holder, expires_at = excluded.expires_at
        where analyzer_slots.expires_at <= now()
       returning slot`,
      [tenant, holder, leaseSeconds, settings.perTenant, tenant],
    ).catch((err: unknown) => {
      void forget(tenant, holder);
      throw err;
    });
    if (rows.length === 0) return undefined;
    const slot = Number(rows[0].slot);
    const renew = setInterval(
      () => {
        void execute(
          `update analyzer_slots set expires_at = now() + ?::int * interval '1 second'
            where tenant = ? and slot = ? and holder = ?`,
          [leaseSeconds, tenant, slot, holder],
        ).catch(() => undefined); // the next renewal tries again; the lease outlives one miss
      },
      (leaseSeconds * 1000) / 3,
    );
    renew.unref();
    let released = false;
    return {
      slot,
      async release() {
        if (released) return;
        released = true;
        clearInterval(renew);
        try {
          await execute('delete from analyzer_slots where tenant = ? and slot = ? and holder = ?', [
            tenant,
            slot,
            holder,
          ]);
        } catch {
          // The database did not answer: the analysis's outcome is not lost for it, and the
          // lease is deleted once the database is back (or runs out).
          void forget(tenant, holder);
        } finally {
          for (const wake of waiters.get(tenant) ?? []) wake();
        }
      },
    };
  };

  /** Resolves after `ms`, or sooner when a lease of `tenant` is given back in this instance or `signal` aborts. */
  const pause = (tenant: string, ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve) => {
      const set = waiters.get(tenant) ?? new Set<() => void>();
      waiters.set(tenant, set);
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        set.delete(done);
        if (set.size === 0) waiters.delete(tenant);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      set.add(done);
    });

  return {
    async acquire(tenant, opts = {}) {
      const { signal } = opts;
      const deadline = performance.now() + Math.min(settings.waitMs, opts.waitMs ?? Infinity);
      let poll = 20;
      for (;;) {
        signal?.throwIfAborted();
        const lease = await take(tenant);
        if (signal?.aborted) {
          await lease?.release();
          signal.throwIfAborted();
        }
        if (lease) return lease;
        const left = deadline - performance.now();
        if (left <= 0) throw new ShareWaitTimeout(settings.waitMs, limits);
        await pause(tenant, Math.min(left, poll * (0.5 + Math.random())), signal);
        poll = Math.min(MAX_POLL_MS, poll * 2);
      }
    },
    async clear() {
      await execute('delete from analyzer_slots', []);
    },
  };
}
