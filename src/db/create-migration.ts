// Generates a migration from the difference between the entities and the migrated schema.
// Run against a fresh in-memory PGlite so the result is the same for every developer:
// `npm run migration:create`. The generated SQL runs on PostgreSQL and PGlite alike.
import path from 'node:path';
import { initORM, migrate } from './orm.ts';
import { projectRoot } from './options.ts';
import { migratorOf } from './migrator.ts';
import { writeMigrationIndex } from './migration-index.ts';

const db = await initORM({});
try {
  await migrate(db.orm);
  const result = await migratorOf(db.orm).createMigration();
  console.log(result.fileName ? `created migrations/${result.fileName}` : 'no changes');
} finally {
  await db.close();
}
writeMigrationIndex(path.join(projectRoot, 'migrations'));
