/**
 * The queues of audits and webhooks and this instance's workers on them. Every instance runs
 * the same workers; the queue gives each job to one of them.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { JobQueue } from '../queue/queue.ts';
import type { ReportAnalyzer } from '../reports/analysis.ts';
import { DELIVERY_ATTEMPTS, DELIVERY_QUEUE } from '../webhooks/events.ts';
import { deliver } from '../webhooks/webhooks.ts';
import { runScheduled, SCHEDULE_QUEUE } from './audits.ts';
import { DEAD_PAGE_QUEUE, PAGE_QUEUE, RUN_QUEUE, runDeadPageJob, runPageJob, runStartJob } from './runs.ts';

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
  await queue.define(RUN_QUEUE, { retryLimit: 3, retryDelay: 5, expireInSeconds: 300, heartbeatSeconds: 10 });
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
    retryLimit: DELIVERY_ATTEMPTS - 1,
    retryDelay: 1,
    retryBackoff: true,
    retryDelayMax: 3600,
    expireInSeconds: Math.ceil(config.WEBHOOK_TIMEOUT_MS / 1000) + 60,
  });
  await queue.work<{ runId: number }>(RUN_QUEUE, 1, (job) => runStartJob(deps, job.data.runId));
  await queue.work<{ runId: number; pageId: number }>(PAGE_QUEUE, config.AUDIT_WORKERS, (job) =>
    runPageJob(deps, job.data),
  );
  await queue.workDeadLetters<{ runId: number; pageId: number }>(DEAD_PAGE_QUEUE, 1, (job, failure) =>
    runDeadPageJob(deps, job.data, failure),
  );
  await queue.work<{ auditId: number }>(SCHEDULE_QUEUE, 1, (job) => runScheduled(deps.em, queue, job.data.auditId));
  await queue.work<{ deliveryId: number }>(DELIVERY_QUEUE, 4, (job) =>
    deliver(deps.em.fork(), config, job.data.deliveryId),
  );
}
