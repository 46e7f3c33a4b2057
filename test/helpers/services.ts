import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pino from 'pino';
import type { Clock } from 'pg-boss';
import { loadConfig, type Config } from '../../src/config.ts';
import { openServices, type OpenedServices } from '../../src/services.ts';
import { createUser } from '../../src/accounts/users.ts';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { createApp } from '../../facade/app.ts';
import { listen, type RunningServer } from '../../facade/server.ts';
import { freshPostgresDatabase, type PostgresDatabase } from './postgres-database.ts';

export { freshPostgresDatabase };

/** Real PostgreSQL/Redis when CI gives them; embedded PGlite and memory stores otherwise. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || undefined;

export const silentLog = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

export interface TestServices extends OpenedServices {
  /** Closes everything and drops the per-test database. */
  cleanup(): Promise<void>;
}

export interface TestServiceOptions {
  env?: Record<string, string>;
  /** 'memory' forces memory stores even when TEST_REDIS_URL is set; 'redis' requires Redis. */
  store?: 'default' | 'memory' | 'redis';
  /** Start the job queue and this instance's audit and webhook workers (src/queue). */
  queue?: boolean;
  /** The queue's clock: pg-boss's `TestClock`, driven by {@link driveClock}; the system clock by default. */
  queueClock?: Clock;
}

/**
 * The schema migrated once for this run (test/setup/migrated-once.ts); undefined outside the
 * tiers that set it up, and outside vitest (the benches import these helpers too).
 */
const migrated = process.env.VITEST ? (await import('vitest')).inject('migratedDatabase') : undefined;

let snapshot: Promise<Blob> | undefined;

/** The migrated embedded database's data, read once per test file. */
function embeddedSnapshot(): Promise<Blob> | undefined {
  if (migrated?.kind !== 'embedded') return undefined;
  snapshot ??= readFile(migrated.snapshotPath).then((bytes) => new Blob([bytes]));
  return snapshot;
}

/** A database of its own on TEST_DATABASE_URL's server, copied from the migrated template when there is one. */
function testPostgresDatabase(adminUrl: string): Promise<PostgresDatabase> {
  return freshPostgresDatabase(adminUrl, migrated?.kind === 'postgres' ? { template: migrated.templateName } : {});
}

/**
 * Opens services for a test: the database from TEST_DATABASE_URL (a fresh database per
 * call) or in-memory PGlite, each a copy of the schema migrated once per run where the tier's
 * global setup made one (else migrated here); stores on TEST_REDIS_URL (a random key prefix)
 * or memory. An unreachable server named by a TEST_* variable makes this throw, so the suite
 * fails.
 */
export async function openTestServices(opts: TestServiceOptions = {}): Promise<TestServices> {
  const pg = TEST_DATABASE_URL ? await testPostgresDatabase(TEST_DATABASE_URL) : undefined;
  const store = opts.store ?? 'default';
  if (store === 'redis' && !TEST_REDIS_URL) throw new Error('TEST_REDIS_URL is not set');
  const redisUrl = store === 'memory' ? undefined : TEST_REDIS_URL;
  const config: Config = loadConfig({
    TOKEN_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'silent',
    // Suites that test rendering ask for it; others never start a browser by accident.
    ANALYZER_RENDER: 'never',
    // Likewise the environment proof's engine (a Chromium started on the first challenge): the
    // suites whose tests read its layouts or need a person's score ask for `auto`.
    CAPTCHA_ENGINE: 'never',
    ...(pg ? { DATABASE_URL: pg.url } : {}),
    ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
    ...opts.env,
  });
  const keyPrefix = `test:${randomBytes(6).toString('hex')}:`;
  let services: OpenedServices;
  try {
    services = await openServices(config, silentLog, {
      keyPrefix,
      dataDir: null,
      embeddedSnapshot: pg ? undefined : await embeddedSnapshot(),
      queue: opts.queue,
      queueClock: opts.queueClock,
    });
  } catch (err) {
    await pg?.drop().catch(() => {});
    throw err;
  }
  return Object.assign(services, {
    async cleanup() {
      await services.close();
      await pg?.drop();
    },
  });
}

/** A user with a fresh API key. */
export async function createKeyedUser(services: OpenedServices, name = 'tester') {
  const em = services.orm.em.fork();
  const user = await createUser(em, { name, email: `${name}-${randomBytes(3).toString('hex')}@example.test` });
  const { apiKey, key } = await createApiKey(em, user, 'test');
  return { user, apiKey, key };
}

export interface TestServer {
  url: string;
  server: RunningServer;
  close(): Promise<void>;
}

/** The real Koa app on an ephemeral loopback port. */
export async function startTestServer(services: OpenedServices): Promise<TestServer> {
  const server = await listen(createApp(services), {
    port: 0,
    host: '127.0.0.1',
    requestTimeoutMs: services.config.REQUEST_TIMEOUT_MS,
  });
  return { url: `http://127.0.0.1:${server.port}`, server, close: () => server.close(1000) };
}
