/**
 * An account's daily page budget (AUDIT_DAILY_PAGES): the audit pages it may queue per UTC day,
 * scheduled and on-demand runs together. Pages are counted when they are queued, in the
 * transaction that queues them, under a lock on the account's row of the day, so instances
 * adding pages at once never overspend it.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

const today = `(now() at time zone 'utc')::date`;

/** Pages the account may still queue today, its row locked until `tx` ends. */
export async function pagesLeftToday(tx: EntityManager, userId: number, budget: number): Promise<number> {
  await tx.execute(
    `insert into audit_page_usage (user_id, day, pages) values (?, ${today}, 0) on conflict do nothing`,
    [userId],
  );
  const [row] = await tx.execute<Array<{ pages: number }>>(
    `select pages from audit_page_usage where user_id = ? and day = ${today} for update`,
    [userId],
  );
  return Math.max(0, budget - (row?.pages ?? 0));
}

/** Counts `pages` queued today (after {@link pagesLeftToday} in the same transaction); old days are dropped. */
export async function spendPages(tx: EntityManager, userId: number, pages: number): Promise<void> {
  if (pages <= 0) return;
  await tx.execute(`update audit_page_usage set pages = pages + ? where user_id = ? and day = ${today}`, [
    pages,
    userId,
  ]);
  await tx.execute(`delete from audit_page_usage where user_id = ? and day < ${today} - 1`, [userId]);
}

/** Pages the account has left today, read without a lock (for a create's early answer). */
export async function pagesLeftNow(em: EntityManager, userId: number, budget: number): Promise<number> {
  const [row] = await em.execute<Array<{ pages: number }>>(
    `select pages from audit_page_usage where user_id = ? and day = ${today}`,
    [userId],
  );
  return Math.max(0, budget - (row?.pages ?? 0));
}

/** Seconds until the budget renews (the next UTC midnight). */
export function secondsToNextDay(now = new Date()): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}
