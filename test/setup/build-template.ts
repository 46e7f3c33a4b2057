/**
 * Builds the schema the tests copy (test/setup/migrated-once.ts runs this under tsx, in a
 * process of its own: vitest's global setup runs in a module runner that PGlite's loader does
 * not work in). With TEST_DATABASE_URL, a new database on that server, migrated and left with no
 * session; without it, an in-memory PGlite, migrated, its data directory written as a tarball to
 * the path given as the first argument. Prints what it built as one line of JSON.
 */
import { writeFile } from 'node:fs/promises';
import { initORM, migrate } from '../../src/db/orm.ts';
import { freshPostgresDatabase } from '../helpers/postgres-database.ts';
import type { MigratedDatabase } from './migrated-once.ts';

async function build(snapshotPath: string): Promise<MigratedDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL || undefined;
  if (adminUrl) {
    const pg = await freshPostgresDatabase(adminUrl, { prefix: 'tmpl' });
    try {
      // Two connections: `migrate` holds its advisory lock on one while the migrator uses another.
      const db = await initORM({ databaseUrl: pg.url }, { pool: { min: 0, max: 2 } });
      try {
        return { kind: 'postgres', templateName: pg.name, migrations: await migrate(db.orm) };
      } finally {
        // A template must have no session left when a database is created from it.
        await db.close();
      }
    } catch (err) {
      await pg.drop().catch(() => {});
      throw err;
    }
  }
  const db = await initORM({});
  try {
    const migrations = await migrate(db.orm);
    const tarball = await db.pglite!.dumpDataDir('none');
    await writeFile(snapshotPath, new Uint8Array(await tarball.arrayBuffer()));
    return { kind: 'embedded', snapshotPath, migrations };
  } finally {
    await db.close();
  }
}

process.stdout.write(`${JSON.stringify(await build(process.argv[2]))}\n`);
