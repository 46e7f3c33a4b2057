/**
 * The queues of audits and webhooks and this instance's workers on them. Every instance runs
 * the same workers; the queue gives each job to one of them. Each account has a fixed number
 * of slots on each queue (singleton keys, held on every instance together), so one account's
 * audits or slow webhooks never take every worker (docs/isolation.md).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { JobQueue } from '../queue/queue.ts';
import type { ReportAnalyzer } from '../reports/analysis.ts';
import { DELIVERY_ATTEMPTS, DELIVERY_QUEUE, deliveryJobOptions, LEGACY_DELIVERY_QUEUE } from '../webhooks/events.ts';
import { deliver } from '../webhooks/webhooks.ts';
import { runScheduled, SCHEDULE_QUEUE } from './audits.ts';
import {
  DEAD_PAGE_QUEUE,
  LEGACY_RUN_QUEUE,
  PAGE_QUEUE,
  RUN_QUEUE,
  runDeadPageJob,
  runJobOptions,
  runPageJob,
  runStartJob,
} from './runs.ts';

/** Creates the queues and starts this instance's workers. */
export async function startAuditWorkers(deps: {
  em: EntityManager;
  config: Config;
  analyzer: ReportAnalyzer;
  queue: JobQueue;
  log: Logger;
}): Promise<void> {
  const { queue, config } = deps;
  // A page past its analysis deadline (plus rendering) is stuck: retried elsewhere. The
  // heartbeat (every few seconds while a page runs) finds a stopped instance's pages sooner.
  const pageSeconds = Math.ceil((config.ANALYZER_TIMEOUT_MS * 3 + config.ANALYZER_RENDER_TIMEOUT_MS) / 1000) + 60;
  const discoverySeconds = Math.ceil(config.AUDIT_DISCOVERY_TIMEOUT_MS / 1000) + 60;
  await queue.define(RUN_QUEUE, {
    policy: 'singleton',
    retryLimit: 3,
    retryDelay: 5,
    expireInSeconds: discoverySeconds,
    heartbeatSeconds: 10,
  });
  // A page job that fails every attempt (its instance stopped on it each time, or it threw) is
  // moved to the dead-letter queue, whose job fails the page so that its run can finish.
  await queue.define(DEAD_PAGE_QUEUE, { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 120 });
  await queue.define(PAGE_QUEUE, {
    policy: 'singleton',
    deadLetter: DEAD_PAGE_QUEUE,
    retryLimit: 3,
    retryDelay: 1,
    expireInSeconds: pageSeconds,
    heartbeatSeconds: 10,
  });
  await queue.define(SCHEDULE_QUEUE, { retryLimit: 2, expireInSeconds: 60 });
  await queue.define(DELIVERY_QUEUE, {
    policy: 'singleton',
    retryLimit: DELIVERY_ATTEMPTS - 1,
    retryDelay: 1,
    retryBackoff: true,
    retryDelayMax: 3600,
    expireInSeconds: Math.ceil(config.WEBHOOK_TIMEOUT_MS / 1000) + 60,
  });
  await retireLegacyQueues(deps.em.fork(), queue, config);
  await queue.work<{ runId: number }>(RUN_QUEUE, config.AUDIT_RUN_WORKERS, (job) => runStartJob(deps, job.data.runId));
  await queue.work<{ runId: number; pageId: number }>(
    PAGE_QUEUE,
    config.AUDIT_WORKERS,
    (job) => runPageJob(deps, job.data),
    { groupConcurrency: config.AUDIT_HOST_CONCURRENCY },
  );
  await queue.workDeadLetters<{ runId: number; pageId: number }>(DEAD_PAGE_QUEUE, 1, (job, failure) =>
    runDeadPageJob(deps, job.data, failure),
  );
  await queue.work<{ auditId: number }>(SCHEDULE_QUEUE, 1, (job) =>
    runScheduled(deps.em, queue, job.data.auditId, config.AUDIT_MIN_INTERVAL),
  );
  await queue.work<{ deliveryId: number }>(DELIVERY_QUEUE, config.WEBHOOK_WORKERS, (job) =>
    deliver(deps.em.fork(), config, job.data.deliveryId),
  );
}

/**
 * The run-start and delivery queues were standard queues before they took per-account slots;
 * a queue's policy is fixed when it is created, so they were replaced. What the old ones still
 * held (queued runs, pending deliveries; their rows say so) is sent to the new ones first.
 */
async function retireLegacyQueues(em: EntityManager, queue: JobQueue, config: Config): Promise<void> {
  await queue.retire(LEGACY_RUN_QUEUE, async () => {
    const runs = await em.execute<Array<{ id: number; user_id: number }>>(
      `select r.id, a.user_id from audit_runs r join audits a on a.id = r.audit_id where r.status = 'queued'`,
    );
    for (const run of runs) await queue.send(RUN_QUEUE, { runId: run.id }, runJobOptions(run.user_id));
  });
  await queue.retire(LEGACY_DELIVERY_QUEUE, async () => {
    const pending = await em.execute<Array<{ id: number; user_id: number }>>(
      `select d.id, w.user_id from webhook_deliveries d join webhooks w on w.id = d.webhook_id
        where d.status = 'pending' order by d.id`,
    );
    await queue.insert(
      DELIVERY_QUEUE,
      pending.map((d, i) => ({
        data: { deliveryId: d.id },
        ...deliveryJobOptions(d.user_id, d.id, config.WEBHOOK_KEY_CONCURRENCY, i),
      })),
    );
  });
}
