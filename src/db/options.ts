import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { ApiKeySchema, ProjectSchema, ReportSchema, SiteSchema, UserSchema } from '../entities/index.ts';
import { migrationsList } from '../../migrations/index.ts';

/** The project root (where package.json and migrations/ live). */
export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Every entity the ORM knows. New entities are added here. */
export const entities = [UserSchema, ApiKeySchema, ProjectSchema, ReportSchema, SiteSchema];

/**
 * Options shared by PostgreSQL and PGlite: same entities, same migrations folder.
 * Migrations come as a static list (migrations/index.ts); `path` is where new ones are written.
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
      // Static list: loads the same under tsx and vitest (see migration-index.ts).
      migrationsList,
      emit: 'ts',
      snapshot: false,
      transactional: true,
      allOrNothing: true,
      silent: true,
    },
  });
}
