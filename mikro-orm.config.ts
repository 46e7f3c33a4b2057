// Configuration for the MikroORM CLI and tooling. The service itself opens the database
// through `initORM` in src/db/orm.ts, which picks PostgreSQL or embedded PGlite.
import { baseOptions } from './src/db/options.ts';
import { Migrator } from '@mikro-orm/migrations';
import { migrationOptions } from './src/db/migrator.ts';

export default {
  ...baseOptions(),
  // The migrator and its settings, which the service attaches only where migrations run (migratorOf).
  extensions: [Migrator],
  migrations: migrationOptions(),
  clientUrl: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
};
