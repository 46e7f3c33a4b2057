import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { MikroORM as Orm, Options } from '@mikro-orm/postgresql';
import { MikroORM } from './mikro-orm.ts';
import type { PGlite } from '@electric-sql/pglite';
import type { PGliteConnectionConfig } from 'mikro-orm-pglite';
import { baseOptions } from './options.ts';
import { EMBEDDED_LOCK_STALE_MS, lockEmbeddedDatabase, type HeldLock } from './lock.ts';
import { migrationNames } from '../../migrations/names.ts';

export interface DatabaseTarget {
  /** PostgreSQL URL; when absent the embedded PGlite database is used. */
  databaseUrl?: string;
  /** Folder for the embedded database; `undefined` with no URL means in-memory (tests). */
  dataDir?: string;
  /**
   * How long to wait for the embedded database's lock (src/db/lock.ts) held by another
   * process; by default long enough for a crashed holder's lock to go stale.
   */
  lockWaitMs?: number;
  /**
   * A tarball of an embedded database's data directory (PGlite's `dumpDataDir`) that an
   * in-memory database starts from instead of an empty one; not with `dataDir`. Tests start
   * each database from one migrated once per run (test/setup/migrated-once.ts).
   */
  snapshot?: Blob;
}

/** Both the ORM and, in embedded mode, the PGlite instance it borrows (closed with it). */
export interface Database {
  orm: Orm;
  /** The embedded database's PGlite (its one connection is the ORM's; src/queue/queue.ts shares it). */
  pglite?: PGlite;
  close(): Promise<void>;
}

/** ORMs opened on the embedded database (one connection, in this process). */
const embedded = new WeakSet<Orm>();

/**
 * Opens the database: PostgreSQL when `databaseUrl` is set, PGlite otherwise.
 * PGlite is always opened with the same extensions (pg_trgm), as it requires; it and its
 * driver are imported only here (a PostgreSQL process never loads them).
 * `overrides` are merged last (tests use them for pool sizes, debug and such).
 */
export async function initORM(target: DatabaseTarget, overrides: Partial<Options> = {}): Promise<Database> {
  if (target.databaseUrl) {
    const orm = await MikroORM.init({
      ...baseOptions(),
      clientUrl: target.databaseUrl,
      pool: { min: 0, max: 10 },
      ...overrides,
    });
    return { orm, close: () => orm.close(true) };
  }
  if (target.snapshot && target.dataDir) throw new Error('a snapshot starts an in-memory database only, not a dataDir');
  let dataDir: string | undefined;
  // One process owns an embedded database directory: taken before PGlite opens a file.
  let lock: HeldLock | undefined;
  if (target.dataDir) {
    dataDir = path.resolve(target.dataDir, 'pglite');
    mkdirSync(path.dirname(dataDir), { recursive: true });
    lock = await lockEmbeddedDatabase(target.dataDir, {
      waitMs: target.lockWaitMs ?? EMBEDDED_LOCK_STALE_MS + 5_000,
      onLost: (err) => console.error(`The lock on the embedded database was lost: ${err.message}`),
    });
  }
  let pglite: PGlite | undefined;
  let orm: Orm;
  try {
    const [{ PGlite }, { pg_trgm }, { StatementSafePGliteDriver }, { embeddedWasmModule }] = await Promise.all([
      import('@electric-sql/pglite'),
      import('@electric-sql/pglite/contrib/pg_trgm'),
      import('./pglite-statements.ts'),
      import('./pglite-module.ts'),
    ]);
    pglite = await PGlite.create({
      dataDir,
      loadDataDir: target.snapshot,
      extensions: { pg_trgm },
      wasmModule: await embeddedWasmModule(),
    });
    const opened = pglite;
    orm = await MikroORM.init({
      ...baseOptions(),
      // A PostgreSQL-compatible driver; its typings differ from PostgreSqlDriver's only in the
      // connection's dynamic-password type (mikro-orm-pglite's knex typings), so it is cast.
      driver: StatementSafePGliteDriver as unknown as NonNullable<Options['driver']>,
      dbName: 'postgres',
      driverOptions: { connection: { pglite: () => opened } satisfies PGliteConnectionConfig },
      ...overrides,
    });
  } catch (err) {
    await pglite?.close().catch(() => {});
    await lock?.release();
    throw err;
  }
  const opened = pglite;
  embedded.add(orm);
  return {
    orm,
    pglite: opened,
    async close() {
      try {
        await orm.close(true);
        await opened.close();
      } finally {
        await lock?.release();
      }
    },
  };
}

/**
 * Whether the database records every migration this build has (migrations/names.ts) as
 * applied, read from MikroORM's own table. False when the table is missing (a new database)
 * or unreadable: the migrator then decides, under the lock.
 */
async function allApplied(orm: Orm): Promise<boolean> {
  const table = orm.config.get('migrations').tableName ?? 'mikro_orm_migrations';
  try {
    const rows = await orm.em.getConnection().execute<{ name: string }[]>(`select name from "${table}"`);
    const applied = new Set(rows.map((r) => r.name));
    return migrationNames.every((name) => applied.has(name));
  } catch {
    return false;
  }
}

/** Advisory lock key serialising migrations across processes starting at once. */
const MIGRATION_LOCK = 727002;

/**
 * Applies pending migrations; returns the names applied. On PostgreSQL,
 * instances starting together take turns under an advisory lock held by a transaction of its
 * own (the migrator uses other connections), so the later ones find the schema current
 * instead of failing on objects the first is creating. PGlite has one connection and one
 * process: no lock.
 */
export async function migrate(orm: Orm): Promise<string[]> {
  if (await allApplied(orm)) return [];
  // Loaded only when there is something to apply: the migrator, umzug and every migration's
  // module.
  const { migratorOf } = await import('./migrator.ts');
  const migrator = migratorOf(orm);
  if (embedded.has(orm)) return (await migrator.up()).map((m) => m.name);
  const connection = orm.em.getConnection();
  return connection.transactional(async (trx) => {
    await connection.execute('select pg_advisory_xact_lock(?)', [MIGRATION_LOCK], 'all', trx);
    return (await migrator.up()).map((m) => m.name);
  });
}
