/**
 * A start reads the applied migrations' names and loads the migrator only when one of this
 * build's migrations is missing (src/db/orm.ts `migrate`). On the embedded database, and on
 * PostgreSQL too when TEST_DATABASE_URL is set.
 */
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/orm.ts';
import { migrationsList } from '../../migrations/index.ts';
import { migrationNames } from '../../migrations/names.ts';
import { migratorOf } from '../../src/db/migrator.ts';
import { unmigratedTargets } from '../helpers/unmigrated.ts';

it('lists the same names as the migrations themselves, in order', () => {
  expect(migrationNames).toEqual(migrationsList.map((m) => m.name));
});

describe.each(unmigratedTargets())('migrate on $name', (target) => {
  it('applies what a partly migrated database lacks, then finds nothing to apply', async () => {
    const db = await target.open();
    // A database of an older build: its first migration applied, the newer ones not.
    expect(migrationNames.length).toBeGreaterThan(1);
    await migratorOf(db.orm).up({ to: migrationNames[0] });
    expect(await migrate(db.orm)).toEqual(migrationNames.slice(1));
    expect(await migrate(db.orm)).toEqual([]);
  }, 60_000);
});
