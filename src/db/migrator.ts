import path from 'node:path';
import type { MikroORM, Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { migrationsList } from '../../migrations/index.ts';
import { projectRoot } from './options.ts';

/**
 * The migrator and its settings, apart from the ORM's base options (options.ts): MikroORM's
 * CLI config, `migration:create`, tests and `migrate` (orm.ts) attach it to an ORM where
 * migrations run.
 */

/** Migration settings. Migrations come as a static list (migrations/index.ts); `path` is where new ones are written. */
export function migrationOptions(): NonNullable<Options['migrations']> {
  return {
    path: path.join(projectRoot, 'migrations'),
    pathTs: path.join(projectRoot, 'migrations'),
    // Static list: loads the same under tsx and vitest (see migration-index.ts).
    migrationsList,
    emit: 'ts',
    snapshot: false,
    transactional: true,
    allOrNothing: true,
    silent: true,
  };
}

/** The migrator of an open ORM, registered with the migration settings on first use. */
export function migratorOf(orm: MikroORM): Migrator {
  if (!orm.config.getExtension('@mikro-orm/migrator')) {
    orm.config.set('migrations', { ...orm.config.get('migrations'), ...migrationOptions() });
    Migrator.register(orm);
  }
  return orm.migrator as Migrator;
}
