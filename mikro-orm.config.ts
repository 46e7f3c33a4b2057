// Configuration for the MikroORM CLI and tooling. The service itself opens the database
// through `initORM` in src/db/orm.ts, which picks PostgreSQL or embedded PGlite.
import { baseOptions } from './src/db/options.ts';
import { migratorOptions } from './src/db/migrator.ts';

export default {
  ...baseOptions(),
  ...migratorOptions(),
  clientUrl: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
};
