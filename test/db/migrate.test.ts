/**
 * A start reads the applied migrations' names and loads the migrator only when one of this
 * build's migrations is missing (src/db/orm.ts `migrate`). On the embedded database, and on
 * PostgreSQL too when TEST_DATABASE_URL is set.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { initORM, migrate, type Database } from '../../src/db/orm.ts';
import { migrationsList } from '../../migrations/index.ts';
import { migrationNames } from '../../migrations/names.ts';
import { migratorOf } from '../../src/db/migrator.ts';
import { freshPostgresDatabase, TEST_DATABASE_URL } from '../helpers/services.ts';

type Target = { name: string; open: () => Promise<{ db: Database; drop: () => Promise<void> }> };
const targets: Target[] = [{ name: 'embedded', open: async () => ({ db: await initORM({}), drop: async () => {} }) }];
if (TEST_DATABASE_URL) {
  targets.push({
    name: 'PostgreSQL',
    open: async () => {
      const pg = await freshPostgresDatabase(TEST_DATABASE_URL!);
      return { db: await initORM({ databaseUrl: pg.url }, { pool: { min: 0, max: 2 } }), drop: () => pg.drop() };
    },
  });
}

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

it('lists the same names as the migrations themselves, in order', () => {
  expect(migrationNames).toEqual(migrationsList.map((m) => m.name));
});

describe.each(targets)('migrate on $name', (target) => {
  it('applies what a partly migrated database lacks, then finds nothing to apply', async () => {
    const { db, drop } = await target.open();
    cleanup = async () => {
      await db.close();
      await drop();
    };
    // A database of an older build: its first migration applied, the newer ones not.
    expect(migrationNames.length).toBeGreaterThan(1);
    await migratorOf(db.orm).up({ to: migrationNames[0] });
    expect(await migrate(db.orm)).toEqual(migrationNames.slice(1));
    expect(await migrate(db.orm)).toEqual([]);
  }, 60_000);
});
