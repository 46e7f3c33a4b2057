import { defineConfig } from 'vitest/config';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The schema migrated once per run; each test's database is a copy of it (test/helpers/services.ts). */
const migratedOnce = 'test/setup/migrated-once.ts';

/**
 * A test file's tier is in its name or its folder, so a new file needs no entry here:
 *
 * - `*.unit.test.ts`: no database, no server of ours, no browser, no child process; each file
 *   runs in seconds (`npm run test:unit`). Stores tests use memory unless TEST_REDIS_URL is set.
 * - `*.browser.test.ts`, and every test in the folders below: drives a browser (Chromium,
 *   Firefox ESR, a headed one on Xvfb) or builds the image's pages in one.
 * - `*.process.test.ts` and `test/cluster/`: runs the service as processes of its own
 *   (`bin/server.ts`, several instances on one database, SIGTERM, the CLI beside a running
 *   service), each start paying Node's and tsx's start-up.
 * - Every other `*.test.ts`: integration, in this process.
 */
const unit = ['test/**/*.unit.test.ts'];
const processes = ['test/**/*.process.test.ts', 'test/cluster/**/*.test.ts'];
const browser = [
  'test/**/*.browser.test.ts',
  'test/adversary/**/*.test.ts',
  'test/analyzer/render/**/*.test.ts',
  'test/e2e/**/*.test.ts',
];

/**
 * Four tiers as vitest projects: `unit`, `integration` (real HTTP through the Koa app, the
 * embedded database or PostgreSQL, memory stores or Redis, the proxies as child processes),
 * `process` and `browser`. `npm test` runs unit and integration (minutes); `npm run test:all`
 * runs every tier, as `.ci/run` does; `npm run test:unit` and the others run one.
 */
export default defineConfig({
  root,
  test: {
    environment: 'node',
    pool: 'forks',
    // Two cores here: more workers only add contention with PGlite's WASM start-up.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'unit', include: unit } },
      // Integration and browser tests run servers, queues and browsers side by side on two shared
      // cores; a test that fails there once is run once more, and the reporter names every retry
      // (a test that fails both times fails the run). Unit tests get no second try.
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...unit, ...browser, ...processes],
          retry: 1,
          globalSetup: [migratedOnce],
        },
      },
      {
        extends: true,
        test: {
          name: 'process',
          include: processes,
          exclude: [...unit, ...browser],
          retry: 1,
          globalSetup: [migratedOnce],
        },
      },
      {
        extends: true,
        test: { name: 'browser', include: browser, exclude: unit, retry: 1, globalSetup: [migratedOnce] },
      },
    ],
  },
});
