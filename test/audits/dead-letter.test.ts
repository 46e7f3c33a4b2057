/**
 * A page whose job fails every attempt goes to pg-boss's dead-letter queue, whose worker fails
 * the page with why, counts it in its run's progress and finishes the run. Through the real
 * queue and workers, on the embedded database (or PostgreSQL with TEST_DATABASE_URL): the run's
 * rows are written as an audit would have them, except that the audit's start URL is not a URL
 * (the API never stores one), so every attempt at its pages throws before any analysis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditPageSchema, AuditRunSchema, AuditSchema } from '../../src/entities/audit.entity.ts';
import { DEAD_PAGE_QUEUE, PAGE_QUEUE } from '../../src/audits/runs.ts';
import { QUEUE_SCHEMA } from '../../src/queue/queue.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { request } from '../helpers/http.ts';

let services: TestServices;
let server: TestServer;
let key: string;
let userId: number;

beforeAll(async () => {
  services = await openTestServices({ queue: true, env: { API_RATE_LIMIT: '100000', QUEUE_MONITOR_SECONDS: '2' } });
  server = await startTestServer(services);
  const keyed = await createKeyedUser(services, 'dead-letter');
  key = keyed.key;
  userId = keyed.user.id;
}, 120_000);
afterAll(async () => {
  await server?.close();
  await services?.cleanup();
});

/** A run under way with `urls` queued, as `audit-run` leaves it, and their page jobs. */
async function runningRun(auditUrl: string, urls: string[]) {
  const em = services.orm.em.fork();
  const audit = em.create(AuditSchema, {
    user: userId,
    url: auditUrl,
    project: 'example.test',
    maxPages: 10,
    render: null,
    include: [],
    exclude: [],
    schedule: null,
    timezone: null,
    status: 'running',
  });
  const run = em.create(AuditRunSchema, {
    audit,
    status: 'running',
    total: urls.length,
    done: 0,
    failed: 0,
    startedAt: new Date(),
  });
  const pages = urls.map((url) =>
    em.create(AuditPageSchema, { run, url, status: 'queued', attempts: 0, updatedAt: new Date() }),
  );
  await em.flush();
  await services.queue!.insert(
    PAGE_QUEUE,
    pages.map((p) => ({ data: { runId: run.id, pageId: p.id }, singletonKey: `example.test#${p.id}` })),
  );
  return { auditId: audit.id, runId: run.id };
}

async function jobStates(name: string, runId: number): Promise<string[]> {
  const { rows } = await services
    .queue!.boss.getDb()
    .executeSql(`select state from ${QUEUE_SCHEMA}.job where name = $1 and (data->>'runId')::int = $2`, [name, runId]);
  return rows.map((r: { state: string }) => r.state).sort();
}

describe('a page whose job fails every attempt', () => {
  it('is failed with why, counted, and its run finishes', async () => {
    const { auditId, runId } = await runningRun('not a url', ['http://example.test/a', 'http://example.test/b']);
    let audit: Record<string, any> | undefined;
    const deadline = Date.now() + 120_000;
    for (;;) {
      const res = await request(`${server.url}/api/v1/audits/${auditId}`, { key });
      expect(res.status).toBe(200);
      audit = res.body.data;
      if (audit!.status !== 'running') break;
      if (Date.now() > deadline) throw new Error(`the run did not finish: ${JSON.stringify(audit!.progress)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(audit!.status).toBe('failed');
    expect(audit!.progress).toEqual({ done: 0, failed: 2, total: 2 });
    expect(audit!.summary).toMatchObject({ pages: 2, failed_pages: 2 });
    for (const page of audit!.pages as Array<{ status: string; error: string; report_id: number | null }>) {
      expect(page.status).toBe('failed');
      expect(page.report_id).toBeNull();
      // The page queue allows 4 attempts (retryLimit 3); the last one's error is kept.
      expect(page.error).toMatch(/^job_failed: The page's job failed all 4 attempts; the last: .*Invalid URL/);
    }
    const run = await services.orm.em.fork().findOneOrFail(AuditRunSchema, { id: runId });
    expect(run.finishedAt).toBeInstanceOf(Date);
    expect(run.error).toBe('Every page of the run failed.');
    // pg-boss gave the page jobs up and its dead-letter jobs did their work.
    expect(await jobStates(PAGE_QUEUE, runId)).toEqual(['failed', 'failed']);
    expect(await jobStates(DEAD_PAGE_QUEUE, runId)).toEqual(['completed', 'completed']);
  }, 180_000);
});
