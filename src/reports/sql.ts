import type { EntityManager } from '@mikro-orm/postgresql';

/** One row of a raw query: column name to value, as the driver returns it. */
export type Row = Record<string, unknown>;

/** Runs raw SQL on `em`'s connection, inside its transaction when it has one. */
export async function sql(em: EntityManager, query: string, params: unknown[]): Promise<Row[]> {
  return em.getConnection().execute<Row[]>(query, params, 'all', em.getTransactionContext());
}
