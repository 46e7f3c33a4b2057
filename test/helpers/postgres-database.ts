import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';

/** A database of its own on a PostgreSQL server, and how to drop it. */
export interface PostgresDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** Runs one statement on the server's admin database over a connection of its own. */
async function onAdmin(adminUrl: string, sql: string): Promise<void> {
  const admin = await MikroORM.init({
    clientUrl: adminUrl,
    entities: [],
    discovery: { warnWhenNoEntities: false },
    pool: { min: 0, max: 1 },
  });
  try {
    await admin.em.getConnection().execute(sql);
  } finally {
    await admin.close(true);
  }
}

/**
 * A fresh database of its own on the PostgreSQL server named by `adminUrl`, so test files
 * running in parallel never share tables: empty, or a copy of `template` (a database nobody
 * is connected to; test/setup/migrated-once.ts keeps a migrated one). Returns its name, its URL
 * and a function that drops it.
 */
export async function freshPostgresDatabase(
  adminUrl: string,
  opts: { template?: string; prefix?: string } = {},
): Promise<PostgresDatabase> {
  const name = `${opts.prefix ?? 't'}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await onAdmin(adminUrl, `create database "${name}"${opts.template ? ` template "${opts.template}"` : ''}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => dropPostgresDatabase(adminUrl, name),
  };
}

/** Drops a database on the server named by `adminUrl`, closing its sessions. */
export function dropPostgresDatabase(adminUrl: string, name: string): Promise<void> {
  return onAdmin(adminUrl, `drop database if exists "${name}" with (force)`);
}
