/**
 * A start reads the applied migrations' names and loads the migrator only when one of this
 * build's migrations is missing (src/db/orm.ts `migrate`). On the embedded database, and on
 * PostgreSQL too when TEST_DATABASE_URL is set.
 */
import { describe, expect, inject, it } from 'vitest';
import { migrate } from '../../src/db/orm.ts';
import { migrationsList } from '../../migrations/index.ts';
import { migrationNames } from '../../migrations/names.ts';
import { migratorOf } from '../../src/db/migrator.ts';
import { unmigratedTargets } from '../helpers/unmigrated.ts';
import { createKeyedUser, openTestServices } from '../helpers/services.ts';
import { UserSchema } from '../../src/entities/index.ts';

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

describe('a test database copied from the schema migrated once per run (test/setup/migrated-once.ts)', () => {
  it('has every migration applied, so opening it applies none, and is a database of its own', async () => {
    expect(inject('migratedDatabase').migrations).toEqual(migrationNames);
    const first = await openTestServices();
    const second = await openTestServices();
    try {
      for (const services of [first, second]) {
        expect(services.migrationsApplied).toEqual([]);
        const rows = await services.orm.em
          .getConnection()
          .execute<{ name: string }[]>('select name from mikro_orm_migrations order by id');
        expect(rows.map((r) => r.name)).toEqual(migrationNames);
      }
      const { user } = await createKeyedUser(first, 'only-in-first');
      expect(await first.orm.em.fork().count(UserSchema, { id: user.id })).toBe(1);
      expect(await second.orm.em.fork().count(UserSchema, {})).toBe(0);
    } finally {
      await first.cleanup();
      await second.cleanup();
    }
  }, 60_000);
});
