/**
 * Site audits through the running service (embedded PGlite, or PostgreSQL and Redis when the
 * TEST_* variables are set): a crawl that obeys robots.txt, reads a sitemap index and follows
 * links, a page that times out counted as failed, progress while it runs, a scheduled second run
 * whose diff shows a changed page, and signed webhook deliveries (one retried).
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { request } from '../helpers/http.ts';
import { poorPage, startAuditSite, type AuditSite } from './site.ts';
import { SCHEDULE_QUEUE } from '../../src/audits/audits.ts';

let services: TestServices;
let server: TestServer;
let site: AuditSite;
let key: string;

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  status: number;
}
let receiver: http.Server;
let receiverUrl: string;
const received: Received[] = [];
let failNext = 1;

beforeAll(async () => {
  services = await openTestServices({
    queue: true,
    env: {
      // The test polls its audits for minutes: the per-key API limit is not what it tests.
      API_RATE_LIMIT: '100000',
      ANALYZER_ALLOW_PRIVATE: 'true',
      // /slow never answers: its deadline is what the run waits for.
      ANALYZER_TIMEOUT_MS: '4000',
      AUDIT_HOST_DELAY_MS: '50',
      // The schedule under test runs every minute; the default keeps schedules an hour apart.
      AUDIT_MIN_INTERVAL: '60',
      QUEUE_MONITOR_SECONDS: '2',
    },
  });
  server = await startTestServer(services);
  site = await startAuditSite();
  ({ key } = await createKeyedUser(services, 'auditor'));
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const status = failNext > 0 ? 500 : 204;
      if (failNext > 0) failNext--;
      received.push({ headers: req.headers, body, status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await server?.close();
  await site?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  await services?.cleanup();
});

/** A call through the running service; every answer is checked against the OpenAPI document. */
async function api(method: string, path: string, body?: unknown) {
  const res = await request(`${server.url}${path}`, { method, key, json: body });
  return { status: res.status, body: res.body as Record<string, any> };
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Standard Webhooks verification, as a receiver would write it. */
function verify(secret: string, r: Received): boolean {
  const keyBytes = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signed = `${String(r.headers['webhook-id'])}.${String(r.headers['webhook-timestamp'])}.${r.body}`;
  const expected = createHmac('sha256', keyBytes).update(signed).digest('base64');
  return String(r.headers['webhook-signature'])
    .split(' ')
    .some((s) => s === `v1,${expected}`);
}

describe('site audits', () => {
  let secret: string;
  let hookId: number;

  it('registers a webhook on loopback and shows its secret once', async () => {
    const created = await api('POST', '/api/v1/webhooks', {
      url: receiverUrl,
      events: ['audit.completed', 'report.grade_changed'],
    });
    expect(created.status).toBe(201);
    secret = created.body.data.secret;
    hookId = created.body.data.id;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    const list = await api('GET', '/api/v1/webhooks');
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].secret).toBeUndefined();
  });

  it('refuses bad input with 422 and field errors', async () => {
    const tooMany = await api('POST', '/api/v1/audits', { url: `${site.url}/`, max_pages: 100_000 });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors.max_pages).toBeDefined();
    const badCron = await api('POST', '/api/v1/audits', { url: `${site.url}/`, schedule: 'every day' });
    expect(badCron.status).toBe(422);
    expect(badCron.body.errors.schedule).toBeDefined();
    const badZone = await api('POST', '/api/v1/audits', {
      url: `${site.url}/`,
      schedule: '* * * * *',
      timezone: 'Mars/Base',
    });
    expect(badZone.status).toBe(422);
    expect(await api('GET', '/api/v1/audits/999999')).toMatchObject({ status: 404 });
  });

  it('audits the site to completion, then again on its schedule, with the change in the diff', async () => {
    const created = await api('POST', '/api/v1/audits', {
      url: `${site.url}/`,
      schedule: '* * * * *',
      timezone: 'Europe/Paris',
    });
    expect(created.status).toBe(202);
    const id = created.body.data.id as number;
    expect(created.body.data.status).toBe('queued');

    let sawProgress = false;
    const first = await until(
      'the first run',
      async () => {
        const { body } = await api('GET', `/api/v1/audits/${id}`);
        const { done, failed, total } = body.data.progress;
        if (body.data.status === 'running' && total > 0 && done + failed < total) sawProgress = true;
        return body.data.status === 'completed' ? body.data : undefined;
      },
      120_000,
    );
    expect(sawProgress).toBe(true);
    const urls = (first.pages as Array<{ url: string }>).map((p) => new URL(p.url).pathname).sort();
    expect(urls).toEqual(['/', '/a', '/b', '/c', '/slow']);
    const failures = (first.pages as Array<{ url: string; error: string | null }>).filter((p) => p.error);
    expect(failures.map((p) => new URL(p.url).pathname)).toEqual(['/slow']);
    expect(first.progress).toEqual({ done: 4, failed: 1, total: 5 });
    const slow = first.pages.find((p: { url: string }) => p.url.endsWith('/slow'));
    expect(slow).toMatchObject({ status: 'failed', report_id: null });
    expect(slow.error).toMatch(/^timeout/);
    expect(first.summary).toMatchObject({ pages: 5, failed_pages: 1 });
    expect(first.summary.grades.good + first.summary.grades.decent + first.summary.grades.bad).toBe(4);
    // robots.txt obeyed: the disallowed page was never fetched; every page once per run.
    expect(site.hits.get('/private/x')).toBeUndefined();
    expect(site.hits.get('/a?x')).toBeUndefined();
    // Each page is a report in the audit's project.
    const report = await api('GET', `/api/v1/reports/${first.pages[0].report_id}`);
    expect(report.body.data.project).toBe('127.0.0.1');

    // The receiver failed the first attempt; the queue retried it, and the signature verifies.
    const completed = await until(
      'the audit.completed delivery',
      async () => received.find((r) => r.status === 204 && JSON.parse(r.body).type === 'audit.completed'),
      30_000,
    );
    expect(verify(secret, completed)).toBe(true);
    expect(verify('whsec_' + Buffer.alloc(24).toString('base64'), completed)).toBe(false);
    const deliveries = await until(
      'the delivery listed as delivered after a retry',
      async () => {
        const { body } = await api('GET', `/api/v1/webhooks/${hookId}/deliveries`);
        const d = body.data.find((x: { event: string }) => x.event === 'audit.completed');
        return d?.status === 'delivered' ? d : undefined;
      },
      10_000,
    );
    expect(deliveries.attempts).toBe(2);
    const ids = received
      .filter((r) => JSON.parse(r.body).type === 'audit.completed')
      .map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(1);

    // The page changes; the schedule (every minute) runs the audit again. The schedule is
    // pg-boss's (its cron pass under a driven clock: test/queue/queue.test.ts); here the clock
    // is driven instead of waited on: the first run is made a minute old, and the occurrence
    // pg-boss's cron sends is sent.
    site.set('/b', poorPage());
    const schedules = await services.queue!.boss.getSchedules(SCHEDULE_QUEUE, String(id));
    expect(schedules.map((x) => [x.cron, x.timezone, x.data])).toEqual([
      ['* * * * *', 'Europe/Paris', { auditId: id }],
    ]);
    const em = services.orm.em.fork();
    await em.execute(`update audit_runs set created_at = created_at - interval '61 seconds' where audit_id = ?`, [id]);
    await services.queue!.send(SCHEDULE_QUEUE, { auditId: id });
    const runs = await until(
      'the scheduled second run',
      async () => {
        const { body } = await api('GET', `/api/v1/audits/${id}/runs`);
        return body.data.length >= 2 && body.data[0].status === 'completed' ? body.data : undefined;
      },
      100_000,
    );
    expect(
      runs.map((r: { id: number; status: string; changes: { previous_run: number | null } }) => [
        r.id,
        r.status,
        r.changes.previous_run,
      ]),
    ).toEqual([
      [runs[0].id, 'completed', runs[1].id],
      [runs[1].id, 'completed', null],
    ]);
    expect(runs[0].changes.grades_moved).toEqual([{ url: `${site.url}/b`, from: 'decent', to: 'bad' }]);
    expect(runs[0].changes.newly_failing.map((x: { url: string }) => x.url)).toEqual([`${site.url}/b`]);
    expect(runs[0].changes.pages_added).toEqual([]);
    expect(runs[0].changes.pages_gone).toEqual([]);
    await until(
      'the report.grade_changed delivery',
      async () => received.find((r) => r.status === 204 && JSON.parse(r.body).type === 'report.grade_changed'),
      20_000,
    );

    // DELETE on a finished audit removes it (and its schedule).
    const removed = await api('DELETE', `/api/v1/audits/${id}`);
    expect(removed.body).toMatchObject({ id, object: 'audit', deleted: true });
    expect((await api('GET', `/api/v1/audits/${id}`)).status).toBe(404);
  }, 300_000);

  it('cancels an audit under way', async () => {
    const created = await api('POST', '/api/v1/audits', { url: `${site.url}/`, max_pages: 3 });
    const id = created.body.data.id as number;
    const cancelled = await api('DELETE', `/api/v1/audits/${id}`);
    expect(cancelled.body).toMatchObject({ id, cancelled: true, deleted: false });
    expect((await api('GET', `/api/v1/audits/${id}`)).body.data.status).toBe('cancelled');
    const list = await api('GET', '/api/v1/audits');
    expect(list.body.meta.total).toBe(1);
    // Each listed audit carries its latest run's progress (read for the whole page at once).
    const one = await api('GET', `/api/v1/audits/${id}`);
    expect(list.body.data).toEqual([
      expect.objectContaining({ id, status: 'cancelled', progress: one.body.data.progress }),
    ]);
  });
});

describe('webhooks without ANALYZER_ALLOW_PRIVATE', () => {
  let strict: TestServices;
  let strictServer: TestServer;
  let strictKey: string;
  beforeAll(async () => {
    strict = await openTestServices();
    strictServer = await startTestServer(strict);
    ({ key: strictKey } = await createKeyedUser(strict, 'strict'));
  });
  afterAll(async () => {
    await strictServer?.close();
    await strict?.cleanup();
  });

  it('refuses a private address', async () => {
    for (const url of ['http://127.0.0.1:9/hook', 'http://10.1.2.3/hook', 'http://localhost/hook']) {
      const res = await fetch(`${strictServer.url}/api/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${strictKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url, events: ['audit.completed'] }),
      });
      expect(res.status).toBe(422);
      const body = (await res.json()) as { code: string; reason: string; errors: Record<string, string[]> };
      expect(body.errors.url).toBeDefined();
      expect(body.reason).toBe('forbidden_address');
    }
  });
});
