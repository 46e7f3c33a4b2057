import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { ApiKeySchema, UserSchema } from '../entities/index.ts';

/** The project root (where package.json and migrations/ live). */
export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Every entity the ORM knows. New entities are added here. */
export const entities = [UserSchema, ApiKeySchema];

/**
 * Options shared by PostgreSQL and PGlite: same entities, same migrations folder.
 * Migrations are TypeScript run through tsx, so `preferTs` points the migrator at the .ts files.
 */
export function baseOptions(): Options {
  return defineConfig({
    entities,
    preferTs: true,
    extensions: [Migrator],
    forceUtcTimezone: true,
    discovery: { warnWhenNoEntities: true },
    migrations: {
      path: path.join(projectRoot, 'migrations'),
      pathTs: path.join(projectRoot, 'migrations'),
      glob: '!(*.d).{js,ts}',
      emit: 'ts',
      snapshot: false,
      transactional: true,
      allOrNothing: true,
      silent: true,
    },
  });
}
