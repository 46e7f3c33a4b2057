import { afterEach } from 'vitest';
import { initORM, type Database } from '../../src/db/orm.ts';
import { freshPostgresDatabase, TEST_DATABASE_URL } from './services.ts';

/** A database a migration test opens unmigrated: the embedded one, and PostgreSQL when configured. */
export interface UnmigratedTarget {
  name: string;
  /** Opens a new, unmigrated database; it is closed and dropped after the test. */
  open(): Promise<Database>;
}

let opened: Array<() => Promise<void>> = [];

afterEach(async () => {
  const closing = opened;
  opened = [];
  for (const close of closing) await close();
});

/** The embedded database, and a fresh PostgreSQL database when TEST_DATABASE_URL is set. */
export function unmigratedTargets(): UnmigratedTarget[] {
  const targets: UnmigratedTarget[] = [
    {
      name: 'embedded',
      async open() {
        const db = await initORM({});
        opened.push(() => db.close());
        return db;
      },
    },
  ];
  if (TEST_DATABASE_URL) {
    targets.push({
      name: 'PostgreSQL',
      async open() {
        const pg = await freshPostgresDatabase(TEST_DATABASE_URL!);
        const db = await initORM({ databaseUrl: pg.url }, { pool: { min: 0, max: 2 } });
        opened.push(async () => {
          await db.close();
          await pg.drop();
        });
        return db;
      },
    });
  }
  return targets;
}
