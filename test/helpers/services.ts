import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import pino from 'pino';
import { loadConfig, type Config } from '../../src/config.ts';
import { openServices, type OpenedServices } from '../../src/services.ts';
import { createUser } from '../../src/accounts/users.ts';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { createApp } from '../../facade/app.ts';
import { listen, type RunningServer } from '../../facade/server.ts';

/** Real PostgreSQL/Redis when CI gives them; embedded PGlite and memory stores otherwise. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || undefined;

export const silentLog = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/**
 * A fresh database of its own on the PostgreSQL server named by `adminUrl`, so test files
 * running in parallel never share tables. Returns its URL and a function that drops it.
 */
export async function freshPostgresDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = await MikroORM.init({
    clientUrl: adminUrl,
    entities: [],
    discovery: { warnWhenNoEntities: false },
    pool: { min: 0, max: 1 },
  });
  try {
    await admin.em.getConnection().execute(`create database "${name}"`);
  } finally {
    await admin.close(true);
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const again = await MikroORM.init({
        clientUrl: adminUrl,
        entities: [],
        discovery: { warnWhenNoEntities: false },
        pool: { min: 0, max: 1 },
      });
      try {
        await again.em.getConnection().execute(`drop database if exists "${name}" with (force)`);
      } finally {
        await again.close(true);
      }
    },
  };
}

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
}

/**
 * Opens services for a test: the database from TEST_DATABASE_URL (a fresh database per
 * call) or in-memory PGlite; stores on TEST_REDIS_URL (a random key prefix) or memory.
 * An unreachable server named by a TEST_* variable makes this throw, so the suite fails.
 */
export async function openTestServices(opts: TestServiceOptions = {}): Promise<TestServices> {
  const pg = TEST_DATABASE_URL ? await freshPostgresDatabase(TEST_DATABASE_URL) : undefined;
  const store = opts.store ?? 'default';
  if (store === 'redis' && !TEST_REDIS_URL) throw new Error('TEST_REDIS_URL is not set');
  const redisUrl = store === 'memory' ? undefined : TEST_REDIS_URL;
  const config: Config = loadConfig({
    TOKEN_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'silent',
    // Suites that test rendering ask for it; others never start a browser by accident.
    ANALYZER_RENDER: 'never',
    ...(pg ? { DATABASE_URL: pg.url } : {}),
    ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
    ...opts.env,
  });
  const keyPrefix = `test:${randomBytes(6).toString('hex')}:`;
  let services: OpenedServices;
  try {
    services = await openServices(config, silentLog, { keyPrefix, dataDir: null, queue: opts.queue });
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
