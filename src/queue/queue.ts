/**
 * The job queue every instance shares: pg-boss 12 on the database the service already has.
 * On PostgreSQL pg-boss keeps a small pool of its own; on the embedded database it shares
 * PGlite's single connection with the ORM (see {@link sharedPgliteDb}). One code path for both.
 */
import {
  PgBoss,
  type Clock,
  fromKnex,
  fromPglite,
  type Db,
  type Job,
  type JobWithMetadata,
  type Queue,
  type SendOptions,
} from 'pg-boss';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Database } from '../db/orm.ts';

/** pg-boss's schema; its tables are pg-boss's own, created and migrated by pg-boss at start. */
export const QUEUE_SCHEMA = 'pgboss';

/** What a queue user may rely on; the pg-boss instance stays behind it. */
export interface JobQueue {
  /**
   * Creates `name` (or updates its options) so jobs may be sent to it. With `deadLetter` (a queue
   * defined before it), a job that fails its last attempt is copied there, with its data, for
   * {@link workDeadLetters}; jobs sent before `deadLetter` was set keep the setting they had.
   */
  define(name: string, options?: Omit<Queue, 'name'>): Promise<void>;
  /**
   * Enqueues one job. `em`, when given, must be the entity manager of an open ORM transaction:
   * the job is inserted through that transaction and exists only if it commits.
   */
  send(name: string, data: object, options?: SendOptions, em?: EntityManager): Promise<string | null>;
  /** Enqueues many jobs at once (through `em`'s transaction, when given). */
  insert(name: string, jobs: Array<{ data: object } & SendOptions>, em?: EntityManager): Promise<void>;
  /**
   * Runs `handler` for each job of `name`, `concurrency` at once in this process; with
   * `groupConcurrency`, at most that many jobs of one group (`SendOptions.group`) at once on
   * every instance together (pg-boss counts them at fetch: a bound, not an exact lock).
   */
  work<T extends object>(
    name: string,
    concurrency: number,
    handler: (job: Job<T>) => Promise<void>,
    options?: { groupConcurrency?: number },
  ): Promise<void>;
  /**
   * Deletes queue `name` and its jobs when it exists, after `carryOver` (which sends what it
   * still owes elsewhere) has run. For a queue replaced by one with another policy.
   */
  retire(name: string, carryOver: () => Promise<void>): Promise<void>;
  /**
   * Runs `handler` for each job of the dead-letter queue `name`: `job.data` is the data of the
   * job that failed every attempt, `failure` how many attempts it had and why the last failed.
   */
  workDeadLetters<T extends object>(
    name: string,
    concurrency: number,
    handler: (job: Job<T>, failure: DeadLetterFailure) => Promise<void>,
  ): Promise<void>;
  /** A recurring job: `cron` in `tz` sends `data` to `name`; one schedule per `key`. */
  schedule(name: string, key: string, cron: string, tz: string, data: object): Promise<void>;
  unschedule(name: string, key: string): Promise<void>;
  /** Cancels queued or active jobs. */
  cancel(name: string, ids: string[]): Promise<void>;
  /** Stops the workers (waiting up to `timeoutMs` for the jobs running) and the maintenance timers. */
  stop(timeoutMs?: number): Promise<void>;
  readonly boss: PgBoss;
}

/** Why a dead-lettered job was given up: its attempts and the last one's error. */
export interface DeadLetterFailure {
  /** The queue the job failed on. */
  queue: string;
  attempts: number;
  /** The last attempt's error message ("job heartbeat timeout" when its instance stopped). */
  reason: string;
}

/** The message pg-boss kept as a failed job's output: a thrown error's, or its own `{value: {message}}`. */
function reasonOf(output: unknown): string {
  const o = (output ?? {}) as { message?: unknown; value?: unknown };
  const inner = (o.value ?? {}) as { message?: unknown };
  const message = o.message ?? inner.message ?? o.value;
  return typeof message === 'string' && message ? message : 'no error was recorded';
}

/**
 * PGlite has one connection, which the ORM holds for the length of each of its transactions.
 * A pg-boss statement sent meanwhile would run inside that transaction (vanishing with a
 * rollback; pg-boss's own `BEGIN...COMMIT` would commit the ORM's half). So every pg-boss
 * statement first takes the ORM's one pool connection and gives it back after: it waits for
 * a transaction to end, and a transaction waits for it. Code inside an ORM transaction must
 * enqueue through that transaction (`send(..., em)`), never through this.
 */
export function sharedPgliteDb(database: Database): Db {
  const pglite = database.pglite;
  if (!pglite) throw new Error('sharedPgliteDb needs the embedded database');
  const inner = fromPglite(pglite);
  const client = database.orm.em.getConnection().getKnex().client as {
    acquireConnection(): Promise<unknown>;
    releaseConnection(connection: unknown): Promise<unknown>;
  };
  /** Runs `statement` holding the ORM's one connection, so it never lands inside an ORM transaction. */
  const holdingOrmConnection = async <T>(statement: () => Promise<T>): Promise<T> => {
    const connection = await client.acquireConnection();
    try {
      return await statement();
    } finally {
      await client.releaseConnection(connection);
    }
  };
  const db: Db = { executeSql: (text, values) => holdingOrmConnection(() => inner.executeSql(text, values)) };
  if (inner.listen) db.listen = inner.listen.bind(inner);
  // A TestClock sets pg-boss's time on the session; PGlite's one session is the ORM's too.
  const setSessionStatements = inner.setSessionStatements?.bind(inner);
  if (setSessionStatements)
    db.setSessionStatements = (statements) => holdingOrmConnection(() => setSessionStatements(statements));
  return db;
}

/** pg-boss statements through the open transaction of `em`. */
function transactionDb(em: EntityManager): Db {
  const trx = em.getTransactionContext<Parameters<typeof fromKnex>[0]>();
  if (!trx) throw new Error('send(..., em) needs the entity manager of an open transaction');
  return fromKnex(trx);
}

export interface QueueSettings {
  /** PostgreSQL URL; unset means the embedded database of `database`. */
  databaseUrl?: string;
  /** How often the maintenance and monitoring passes run (seconds); short in tests. */
  monitorIntervalSeconds?: number;
  /**
   * pg-boss's source of time and timers (polls, heartbeats, retry delays, cron): the system
   * clock, or in tests pg-boss's `TestClock`, which moves only when the test ticks it.
   */
  clock?: Clock;
}

/**
 * Starts pg-boss (creating or migrating its schema) and returns the queue. On the embedded
 * database, jobs a crashed process left `active` would stay so until they expire: they are
 * failed here, at start, so those with retries left run again at once (one process owns an
 * embedded database, so no other process can be working on them).
 */
export async function openQueue(database: Database, settings: QueueSettings, log: Logger): Promise<JobQueue> {
  const embedded = !settings.databaseUrl;
  const pollingIntervalSeconds = embedded ? 0.5 : 1;
  const monitor = settings.monitorIntervalSeconds ?? 10;
  const boss = new PgBoss({
    ...(embedded
      ? { db: sharedPgliteDb(database), backend: 'pglite' as const }
      : { connectionString: settings.databaseUrl, max: 4, application_name: 'auditcaptcha-queue' }),
    schema: QUEUE_SCHEMA,
    monitorIntervalSeconds: monitor,
    superviseIntervalSeconds: monitor,
    cronMonitorIntervalSeconds: Math.max(1, Math.min(monitor, 30)),
    cronWorkerIntervalSeconds: Math.max(1, Math.min(monitor, 5)),
    queueCacheIntervalSeconds: monitor,
    ...(settings.clock ? { clock: settings.clock } : {}),
  });
  boss.on('error', (err) => log.warn({ err }, 'job queue'));
  await boss.start();
  const defined = new Set<string>();
  const recovered = new Set<string>();
  const queue: JobQueue = {
    boss,
    async define(name, options = {}) {
      if ((await boss.getQueue(name)) === null) await boss.createQueue(name, options);
      else {
        // A queue's policy and partitioning are fixed when it is created; the rest may change.
        const { policy: _policy, partition: _partition, ...changeable } = options;
        if (Object.keys(changeable).length > 0) await boss.updateQueue(name, changeable);
      }
      defined.add(name);
      if (embedded && !recovered.has(name)) {
        recovered.add(name);
        await failLeftActive(boss, name, log);
      }
    },
    send: (name, data, options = {}, em) => boss.send(name, data, em ? { ...options, db: transactionDb(em) } : options),
    async insert(name, jobs, em) {
      if (jobs.length === 0) return;
      await boss.insert(name, jobs, em ? { db: transactionDb(em) } : undefined);
    },
    async retire(name, carryOver) {
      if ((await boss.getQueue(name)) === null) return;
      await carryOver();
      await boss.deleteQueue(name);
      log.info({ queue: name }, 'retired queue: its work was sent to the queue that replaced it');
    },
    async work(name, concurrency, handler, options = {}) {
      await boss.work<object>(
        name,
        {
          localConcurrency: concurrency,
          batchSize: 1,
          pollingIntervalSeconds,
          burstWhenReadyExceeds: 1,
          ...(options.groupConcurrency ? { groupConcurrency: options.groupConcurrency } : {}),
        },
        async ([job]) => {
          try {
            await handler(job as Job<never>);
          } catch (err) {
            log.warn({ err, queue: name, job: job.id }, 'job failed (retried while it may be)');
            throw err;
          }
        },
      );
    },
    async workDeadLetters(name, concurrency, handler) {
      await boss.work(
        name,
        {
          localConcurrency: concurrency,
          batchSize: 1,
          includeMetadata: true,
          pollingIntervalSeconds,
        },
        async ([job]: Array<JobWithMetadata<never>>) => {
          const failure: DeadLetterFailure = {
            queue: job.sourceName ?? name,
            attempts: (job.sourceRetryCount ?? 0) + 1,
            reason: reasonOf(job.sourceOutput),
          };
          try {
            await handler(job, failure);
          } catch (err) {
            log.warn({ err, queue: name, job: job.id }, 'dead-letter job failed (retried while it may be)');
            throw err;
          }
        },
      );
    },
    schedule: (name, key, cron, tz, data) => boss.schedule(name, cron, data, { tz, key }),
    unschedule: (name, key) => boss.unschedule(name, key),
    async cancel(name, ids) {
      if (ids.length) await boss.cancel(name, ids);
    },
    async stop(timeoutMs = 10_000) {
      await boss.stop({ graceful: true, timeout: timeoutMs, close: true });
    },
  };
  return queue;
}

/** Fails the jobs of `name` left active by a process that stopped without finishing them. */
async function failLeftActive(boss: PgBoss, name: string, log: Logger): Promise<void> {
  const { rows } = await boss
    .getDb()
    .executeSql(`select id from ${QUEUE_SCHEMA}.job where name = $1 and state = 'active'`, [name]);
  const ids = rows.map((r: { id: string }) => r.id);
  if (ids.length === 0) return;
  await boss.fail(name, ids, { message: 'the process running it stopped' });
  log.warn({ queue: name, jobs: ids.length }, 'jobs left active by a stopped process failed (retried if they may be)');
}
