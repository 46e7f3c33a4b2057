/**
 * vitest's global setup for the integration and browser tiers: the schema is migrated once per
 * run, and every `openTestServices` call (test/helpers/services.ts) starts a database of its own
 * as a copy of it, rather than migrating a new one.
 *
 * - Embedded (no TEST_DATABASE_URL): a PGlite migrated in memory, its data directory dumped to
 *   a tarball in a temporary folder (`dumpDataDir`); each test's PGlite starts from it
 *   (`loadDataDir`).
 * - PostgreSQL (TEST_DATABASE_URL): a database migrated once on that server; each test's
 *   database is `CREATE DATABASE ... TEMPLATE` of it.
 *
 * test/setup/build-template.ts builds it in a child process. Each project that lists this file
 * runs it in vitest's main process; the projects share one template (the first builds it) and
 * the last teardown removes it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { dropPostgresDatabase } from '../helpers/postgres-database.ts';

/** What the tests receive through `inject('migratedDatabase')`. */
export type MigratedDatabase =
  | { kind: 'embedded'; snapshotPath: string; migrations: string[] }
  | { kind: 'postgres'; templateName: string; migrations: string[] };

declare module 'vitest' {
  export interface ProvidedContext {
    migratedDatabase: MigratedDatabase;
  }
}

interface Built {
  database: MigratedDatabase;
  remove(): Promise<void>;
}

const KEY = Symbol.for('auditcaptcha.test.migrated-once');
const shared = globalThis as { [KEY]?: { built: Promise<Built>; users: number } };

const here = path.dirname(fileURLToPath(import.meta.url));

async function build(): Promise<Built> {
  const folder = await mkdtemp(path.join(tmpdir(), 'auditcaptcha-test-db-'));
  const removeFolder = () => rm(folder, { recursive: true, force: true });
  let database: MigratedDatabase;
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', path.join(here, 'build-template.ts'), path.join(folder, 'migrated.tar')],
      { cwd: path.resolve(here, '../..'), env: process.env, maxBuffer: 1 << 20 },
    );
    database = JSON.parse(stdout.trim().split('\n').at(-1)!) as MigratedDatabase;
  } catch (err) {
    await removeFolder();
    throw err;
  }
  if (database.kind === 'embedded') return { database, remove: removeFolder };
  const { templateName } = database;
  return {
    database,
    async remove() {
      await removeFolder();
      await dropPostgresDatabase(process.env.TEST_DATABASE_URL!, templateName);
    },
  };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const state = (shared[KEY] ??= { built: build(), users: 0 });
  state.users++;
  const { database } = await state.built;
  project.provide('migratedDatabase', database);
  return async () => {
    if (--state.users > 0) return;
    delete shared[KEY];
    await (await state.built).remove();
  };
}
