import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { resolveTokenKey } from './config.ts';
import { initORM, migrate, type Database } from './db/orm.ts';
import { openStores, type Stores } from './stores/index.ts';
import { createReportAnalyzer, type ReportAnalyzer } from './reports/analysis.ts';
import { databaseSlots } from './reports/shared-slots.ts';
import { createMetrics, instrumentStores, type Metrics } from './metrics.ts';
import { engineReferenceFrom } from './captcha/engine-reference-from.ts';
import { networkClassifierFrom, type NetworkClassifier } from './net/hosting.ts';
import type { ReferenceSource } from './captcha/engine-reference.ts';
import { ChallengeAnalytics } from './analytics/counter.ts';
import type { JobQueue } from './queue/queue.ts';
import type { Clock } from 'pg-boss';

/** Long-lived things a request may use; built once at start by `openServices`. */
export interface Services {
  config: Config;
  orm: MikroORM;
  stores: Stores;
  log: Logger;
  analyzer: ReportAnalyzer;
  /** Prometheus metrics of this instance (src/metrics.ts). */
  metrics: Metrics;
  /** Engine-measured layouts for the environment proof; undefined where no Chromium is configured. */
  engineReference?: ReferenceSource;
  /** The client address's network (hosting or not) for the score; absent with ASN_DATABASE=off. */
  networks?: NetworkClassifier;
  /** The console's challenge analytics, counted in memory and flushed to the database (src/analytics). */
  analytics?: ChallengeAnalytics;
  /**
   * The job queue shared by every instance, with this instance's audit and webhook workers;
   * absent when opened without `queue` (the CLI, most tests): audits then answer 503.
   */
  queue?: JobQueue;
}

export interface OpenedServices extends Services {
  db: Database;
  /** Migrations applied while opening (empty when the schema was current). */
  migrationsApplied: string[];
  /**
   * Opens the job queue and starts this instance's audit and webhook workers (once; later calls
   * share the first). `queue` is set once they run; until then audits answer 503. The server
   * calls it once it listens, so a start is no slower for it; `close()` stops what it started.
   */
  startQueue(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens everything the service needs, in order: token key, database (migrated), stores.
 * Used by main, the CLI and tests alike.
 */
export async function openServices(
  config: Config,
  log: Logger,
  opts: {
    keyPrefix?: string;
    dataDir?: string | null;
    /** With no DATABASE_URL and no data folder: the embedded database's starting data (`snapshot` in src/db/orm.ts). */
    embeddedSnapshot?: Blob;
    /** Open the job queue and start this instance's audit and webhook workers ({@link startQueue}). */
    queue?: boolean;
    /** The job queue's time and timers (pg-boss's `Clock`); the system clock unless a test drives one. */
    queueClock?: Clock;
  } = {},
): Promise<OpenedServices> {
  resolveTokenKey(config);
  const dataDir = opts.dataDir === null ? undefined : (opts.dataDir ?? config.DATA_DIR);
  const snapshot = config.DATABASE_URL ? undefined : opts.embeddedSnapshot;
  const db = await initORM({ databaseUrl: config.DATABASE_URL, dataDir, snapshot });
  const slots = databaseSlots(db.orm, {
    perTenant: config.ANALYZER_KEY_CONCURRENCY,
    queued: config.ANALYZER_KEY_QUEUE,
    waitMs: config.ANALYZER_KEY_WAIT_MS,
  });
  let stores: Stores | undefined;
  let applied: string[];
  try {
    applied = await migrate(db.orm);
    if (applied.length) log.info({ migrations: applied }, 'migrations applied');
    // One process owns an embedded database: analyzer slot leases its last process left are stale.
    if (!config.DATABASE_URL) await slots.clear();
    stores = await openStores({
      redisUrl: config.REDIS_URL,
      keyPrefix: opts.keyPrefix,
      log,
      redisCommandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
    });
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  const opened = stores;
  if (config.TEST_KEYS === 'on' && config.NODE_ENV === 'production') {
    log.warn(
      'TEST_KEYS is on in production: the published test secrets accept dummy tokens and the test sitekeys issue tokens for any origin; set TEST_KEYS=off',
    );
  }
  const metrics = createMetrics();
  const analyzer = createReportAnalyzer(config, { metrics, slots, warn: (message) => log.warn(message) });
  const engineReference = engineReferenceFrom(config, (message) => log.warn(message));
  const networks = networkClassifierFrom(config, (message) => log.warn(message));
  const analytics = new ChallengeAnalytics({
    orm: db.orm,
    log,
    registry: metrics.registry,
    flushMs: config.ANALYTICS_FLUSH_MS,
    retentionDays: config.ANALYTICS_RETENTION_DAYS,
  }).start();
  let starting: Promise<void> | undefined;
  const services: OpenedServices = {
    config,
    log,
    orm: db.orm,
    stores: instrumentStores(opened, metrics),
    analyzer,
    metrics,
    engineReference,
    networks,
    analytics,
    db,
    migrationsApplied: applied,
    startQueue() {
      starting ??= openQueueOf(services, opts.queueClock);
      return starting;
    },
    async close() {
      await starting?.catch(() => undefined);
      await services.queue
        ?.stop(config.SHUTDOWN_TIMEOUT_MS)
        .catch((err: unknown) => log.warn({ err }, 'stopping the job queue failed'));
      await engineReference?.close().catch((err: unknown) => log.warn({ err }, 'closing the engine reference failed'));
      await analytics.close();
      await analyzer
        .close()
        .catch((err: unknown) => log.warn({ err }, 'closing the analyzer (check workers, browser) failed'));
      await opened.close().catch((err) => log.warn({ err }, 'closing stores failed'));
      await db.close().catch((err) => log.warn({ err }, 'closing database failed'));
    },
  };
  if (opts.queue) {
    try {
      await services.startQueue();
    } catch (err) {
      await services.close();
      throw err;
    }
  }
  return services;
}

/** Opens the queue and starts this instance's workers; sets `services.queue` once they run. */
async function openQueueOf(services: OpenedServices, clock: Clock | undefined): Promise<void> {
  const { config, log, analyzer, db } = services;
  const [{ openQueue }, { startAuditWorkers }] = await Promise.all([
    import('./queue/queue.ts'),
    import('./audits/workers.ts'),
  ]);
  const queue = await openQueue(
    db,
    { databaseUrl: config.DATABASE_URL, monitorIntervalSeconds: config.QUEUE_MONITOR_SECONDS, clock },
    log,
  );
  try {
    await startAuditWorkers({ em: db.orm.em, config, analyzer, queue, log });
  } catch (err) {
    await queue.stop(0).catch(() => {});
    throw err;
  }
  services.queue = queue;
}
