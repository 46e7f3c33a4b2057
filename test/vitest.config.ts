import { defineConfig } from 'vitest/config';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The schema migrated once per run; each test's database is a copy of it (test/helpers/services.ts). */
const migratedOnce = 'test/setup/migrated-once.ts';

/**
 * Unit tests: no database, no server of ours, no browser, no child process; each file runs in
 * seconds (`npm run test:unit`). Stores tests use memory unless TEST_REDIS_URL is set.
 */
const unit = [
  'test/accounts/secret-scheme.test.ts',
  'test/analyzer/accessibility-score.test.ts',
  'test/analyzer/analyze.test.ts',
  'test/analyzer/catalogue.test.ts',
  'test/analyzer/checks.test.ts',
  'test/analyzer/links.test.ts',
  'test/analyzer/pool.test.ts',
  'test/analyzer/render/proxy.test.ts',
  'test/analyzer/resolver.test.ts',
  'test/analyzer/scan.test.ts',
  'test/analyzer/ssrf.test.ts',
  'test/analyzer/units.test.ts',
  'test/audits/changes.test.ts',
  'test/captcha/answer.test.ts',
  'test/captcha/render.test.ts',
  'test/captcha/surge.test.ts',
  'test/captcha/tokens.test.ts',
  'test/captcha/work.test.ts',
  'test/config.test.ts',
  'test/console/bundle.test.ts',
  'test/errors.test.ts',
  'test/facade/spec-routes.test.ts',
  'test/net/client-key.test.ts',
  'test/raw-json.test.ts',
  'test/stores/compact-json.test.ts',
  'test/stores/memory-stores.test.ts',
  'test/stores/stores.test.ts',
  'test/widget/solver.test.ts',
  'test/widget/strings.test.ts',
  'test/widget/widget-build.test.ts',
];

/** Suites that drive a browser (Chromium, Firefox ESR, a headed one on Xvfb) or build the image's pages in one. */
const browser = [
  'test/adversary/**/*.test.ts',
  'test/analyzer/render/**/*.test.ts',
  'test/build.test.ts',
  'test/captcha/engine-reference.test.ts',
  'test/compat/hcaptcha.test.ts',
  'test/compat/recaptcha.test.ts',
  'test/compat/turnstile.test.ts',
  'test/e2e/**/*.test.ts',
  'test/reports/isolation.test.ts',
  'test/widget/accessibility.test.ts',
  'test/widget/firefox-env-proof.test.ts',
  'test/widget/screen-reader.test.ts',
];

/**
 * Three tiers as vitest projects: `unit`, `integration` (real HTTP through the Koa app, the
 * embedded database or PostgreSQL, memory stores or Redis, child processes) and `browser`.
 * `npm test` runs all three (what CI runs); `npm run test:unit` and the others run one.
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
