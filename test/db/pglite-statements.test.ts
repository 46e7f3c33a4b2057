import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { PGliteDriver } from 'mikro-orm-pglite';
import { StatementSafePGliteDriver } from '../../src/db/pglite-statements.ts';

/**
 * The upstream bug decision 0017 keeps a workaround for: mikro-orm-pglite's knex dialect
 * splits raw SQL on ';' and sends the parts apart, so a raw query whose value holds ';' fails
 * or answers in the wrong shape. When the stock driver passes, the workaround can go.
 */
const SQL = "select 'a;b' as v";

async function ormOn(driver: unknown, pglite: PGlite) {
  return MikroORM.init({
    driver: driver as NonNullable<Options['driver']>,
    dbName: 'postgres',
    entities: [],
    discovery: { warnWhenNoEntities: false },
    driverOptions: { connection: { pglite: () => pglite } },
  });
}

describe('raw SQL with a semicolon in a value, on PGlite', () => {
  let pglite: PGlite;
  beforeAll(async () => {
    pglite = await PGlite.create();
  });
  afterAll(async () => {
    await pglite?.close();
  });

  it('fails on mikro-orm-pglite as published (the bug is still upstream)', async () => {
    const orm = await ormOn(PGliteDriver, pglite);
    const answer = await orm.em
      .getConnection()
      .execute(SQL)
      .then((rows: unknown) => rows)
      .catch((err: unknown) => err);
    expect(answer).not.toEqual([{ v: 'a;b' }]);
    await orm.close(false);
  });

  it('answers one row with the value whole through StatementSafePGliteDriver', async () => {
    const orm = await ormOn(StatementSafePGliteDriver, pglite);
    expect(await orm.em.getConnection().execute(SQL)).toEqual([{ v: 'a;b' }]);
    await orm.close(false);
  });
});
