import { LRUCache } from 'lru-cache';
import { IsolationLevel } from '../db/mikro-orm.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from './sql.ts';

/**
 * Exact totals of report searches, counted once per state of the user's reports.
 *
 * A search's total is an exact count of its matches (about 30 ms for 10,000 matches among
 * 1,000,000 reports: the trigram index scan and a recheck of every match). The count only
 * changes when the user's reports do, and `users.reports_version` changes in every
 * transaction that writes one of them (triggers on `reports`, migration 20261125100000). So
 * a total counted together with the version, in one snapshot (a repeatable-read
 * transaction), is the exact total for as long as the version reads the same: paging
 * through a search, or the same search again, costs a one-row read instead of a count. The version is read from the
 * database on every call, so a write through any instance is seen by all of them at once.
 */

/** Totals kept per process; a key is at most about 500 bytes (a search is at most 200 characters). */
const MAX_TOTALS = 10_000;

/** One cache per ORM instance (per database): tests open many in one process. */
const caches = new WeakMap<object, LRUCache<string, number>>();

function cacheOf(em: EntityManager): LRUCache<string, number> {
  let cache = caches.get(em.config);
  if (!cache) {
    cache = new LRUCache<string, number>({ max: MAX_TOTALS });
    caches.set(em.config, cache);
  }
  return cache;
}

/** The version of the user's reports now (0 before their first write). */
async function reportsVersion(em: EntityManager, userId: number): Promise<string> {
  const rows = await sql(em, 'select reports_version::text as version from users where id = ?', [userId]);
  return (rows[0]?.version as string | undefined) ?? '0';
}

function totalKey(userId: number, version: string, filter: unknown[]): string {
  return JSON.stringify([userId, version, ...filter]);
}

/** The search's exact total if this state of the user's reports has been counted before. */
export async function knownSearchTotal(
  em: EntityManager,
  userId: number,
  filter: unknown[],
): Promise<number | undefined> {
  return cacheOf(em).get(totalKey(userId, await reportsVersion(em, userId), filter));
}

/**
 * Counts a search's exact total (`filter` names it: the search and its filters, not the user)
 * beside a read of the version, in one snapshot, and keeps it for {@link knownSearchTotal}.
 */
export async function countSearchTotal(
  em: EntityManager,
  userId: number,
  filter: unknown[],
  count: (em: EntityManager) => Promise<number>,
): Promise<number> {
  // A fork of its own: the request's entity manager may hold changes this must not flush.
  const [version, total] = await em
    .fork()
    .transactional(async (tx) => [await reportsVersion(tx, userId), await count(tx)] as const, {
      isolationLevel: IsolationLevel.REPEATABLE_READ,
      readOnly: true,
    });
  cacheOf(em).set(totalKey(userId, version, filter), total);
  return total;
}

/**
 * Call first in a transaction that writes the user's reports. The triggers lock the user's
 * row when the reports are written (to change the version); locking it before any report or
 * project row keeps one lock order for every report write (user, then report, then project),
 * so two of them cannot deadlock. Only a lock: a transaction that ends up writing nothing
 * changes nothing.
 */
export async function lockReportsOf(em: EntityManager, userId: number): Promise<void> {
  await sql(em, 'select 1 from users where id = ? for no key update', [userId]);
}
