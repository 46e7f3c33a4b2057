/**
 * The job queue on the embedded database, where pg-boss and the ORM share PGlite's one
 * connection: a job sent through an ORM transaction lives and dies with it, pg-boss's own
 * statements wait for an open ORM transaction instead of running inside it, and jobs a stopped
 * process left active are run again at the next start. On PostgreSQL (TEST_DATABASE_URL) the
 * transactional send is checked too, and on both a job whose heartbeat lapsed on every attempt
 * reaches its dead-letter queue.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TestClock } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initORM, migrate, type Database } from '../../src/db/orm.ts';
import { openQueue, QUEUE_SCHEMA, type JobQueue } from '../../src/queue/queue.ts';
import { freshPostgresDatabase, silentLog, TEST_DATABASE_URL } from '../helpers/services.ts';

async function jobStates(queue: JobQueue, name: string): Promise<string[]> {
  const { rows } = await queue.boss
    .getDb()
    .executeSql(`select state from ${QUEUE_SCHEMA}.job where name = $1 order by created_on`, [name]);
  return rows.map((r: { state: string }) => r.state);
}

const targets = [{ name: 'PGlite', url: undefined as string | undefined }];
if (TEST_DATABASE_URL) targets.push({ name: 'PostgreSQL', url: TEST_DATABASE_URL });

describe.each(targets)('the queue on $name', ({ url }) => {
  let db: Database;
  let queue: JobQueue;
  let clock: TestClock;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const pg = url ? await freshPostgresDatabase(url) : undefined;
    drop = pg ? () => pg.drop() : undefined;
    db = await initORM({ databaseUrl: pg?.url });
    await migrate(db.orm);
    // pg-boss's timers (polls, heartbeats, cron) move only when a test ticks this clock.
    clock = new TestClock();
    queue = await openQueue(db, { databaseUrl: pg?.url, monitorIntervalSeconds: 2, clock }, silentLog);
  }, 120_000);
  afterAll(async () => {
    await queue?.stop(0);
    await db?.close();
    await drop?.();
  });

  it('sends through an ORM transaction: the job exists only if it commits', async () => {
    await queue.define('t-tx');
    await db.orm.em
      .fork()
      .transactional(async (tx) => {
        await queue.send('t-tx', { n: 1 }, {}, tx);
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    expect(await jobStates(queue, 't-tx')).toEqual([]);
    await db.orm.em.fork().transactional(async (tx) => {
      await queue.send('t-tx', { n: 2 }, {}, tx);
    });
    expect(await jobStates(queue, 't-tx')).toEqual(['created']);
  });

  it('moves a job whose heartbeat lapsed on its last attempt to its dead-letter queue, with why', async () => {
    await queue.define('t-dead');
    await queue.define('t-heartbeat', { retryLimit: 1, retryDelay: 0, heartbeatSeconds: 10, deadLetter: 't-dead' });
    const id = await queue.send('t-heartbeat', { n: 7 });
    const dead = new Promise<unknown>((resolve) => {
      void queue.workDeadLetters<{ n: number }>('t-dead', 1, async (job, failure) =>
        resolve({ data: job.data, failure }),
      );
    });
    // Taken twice and never finished nor heartbeated again, as an instance killed on it leaves
    // it: the clock passes the 10 s heartbeat each time, and the supervisor's pass fails it.
    for (let attempt = 0; attempt < 2; attempt++) {
      const taken = await queue.boss.fetch('t-heartbeat');
      expect(taken.map((j) => j.id)).toEqual([id]);
      await clock.tick(13_000);
    }
    const deadline = clock.now() + 60_000;
    let result: unknown;
    void dead.then((r) => (result = r));
    while (result === undefined && clock.now() < deadline) await clock.tick(1_000);
    expect(result).toEqual({
      data: { n: 7 },
      failure: { queue: 't-heartbeat', attempts: 2, reason: 'job heartbeat timeout' },
    });
  });

  it("sends a schedule's occurrence when its minute comes, and only then", async () => {
    await queue.define('t-cron');
    // The clock jumps forward to 09:29:30 UTC two days ahead of wherever it stands: pg-boss leaves
    // its timers alone on a backward jump, so a fixed date would wait on the real time it passed.
    // 18:30 in Tokyo (no daylight saving time) is 09:30 UTC every day of the year.
    const day = 24 * 3_600_000;
    const dayStart = (Math.floor(clock.now() / day) + 2) * day;
    const at = (h: number, m: number, s: number) => dayStart + ((h * 60 + m) * 60 + s) * 1000;
    await clock.setTime(at(9, 29, 30));
    await queue.schedule('t-cron', 'k', '30 18 * * *', 'Asia/Tokyo', { n: 9 });
    const sent: unknown[] = [];
    await queue.work<{ n: number }>('t-cron', 1, async (job) => void sent.push(job.data));
    // Until 09:30 UTC nothing; in the minute after it, one job.
    while (clock.now() < at(9, 29, 55)) await clock.tick(5_000);
    expect(sent).toEqual([]);
    while (clock.now() < at(9, 31, 30) && sent.length === 0) await clock.tick(5_000);
    expect(sent).toEqual([{ n: 9 }]);
    expect(clock.now()).toBeGreaterThanOrEqual(at(9, 30, 0));
    await queue.unschedule('t-cron', 'k');
  }, 90_000);

  it('keeps its own statements out of an open ORM transaction', async () => {
    await queue.define('t-shared');
    await db.orm.em.getConnection().execute('create table if not exists t_shared (n int)');
    let sent: Promise<string | null> | undefined;
    await db.orm.em
      .fork()
      .transactional(async (tx) => {
        await tx.execute('insert into t_shared values (1)');
        // Sent while the transaction is open, not through it: it must neither vanish with the
        // rollback below nor commit the insert above.
        sent = queue.send('t-shared', { n: 1 });
        await new Promise((resolve) => setTimeout(resolve, 200));
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    expect(await sent).toEqual(expect.any(String));
    expect(await jobStates(queue, 't-shared')).toEqual(['created']);
    expect(await db.orm.em.getConnection().execute('select n from t_shared')).toEqual([]);
  });
});

describe('a restart of the embedded database', () => {
  let dir: string;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs again the jobs a stopped process left active', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'queue-restart-'));
    const first = await initORM({ dataDir: dir });
    await migrate(first.orm);
    const queue = await openQueue(first, { monitorIntervalSeconds: 2 }, silentLog);
    await queue.define('t-restart', { retryLimit: 2, expireInSeconds: 3600 });
    const id = await queue.send('t-restart', { n: 1 });
    const [taken] = await queue.boss.fetch('t-restart');
    expect(taken.id).toBe(id);
    expect(await jobStates(queue, 't-restart')).toEqual(['active']);
    // The process stops without finishing the job (a crash leaves the same rows).
    await queue.stop(0);
    await first.close();

    const second = await initORM({ dataDir: dir });
    const again = await openQueue(second, { monitorIntervalSeconds: 2 }, silentLog);
    try {
      await again.define('t-restart', { retryLimit: 2, expireInSeconds: 3600 });
      const ran = new Promise<string>((resolve) => {
        void again.work<{ n: number }>('t-restart', 1, async (job) => resolve(job.id));
      });
      expect(await ran).toBe(id);
    } finally {
      await again.stop(0);
      await second.close();
    }
  }, 120_000);
});
