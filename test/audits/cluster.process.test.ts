/**
 * Three service processes on one PostgreSQL share one queue: an audit posted to one is worked
 * on by all; one instance killed (SIGKILL) mid-audit loses no page (its jobs are retried by the
 * others once their heartbeat stops), and every page gets exactly one report.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initORM, type Database } from '../../src/db/orm.ts';
import { redisDbUrl, startCluster, type Cluster } from '../helpers/cluster.ts';
import { request } from '../helpers/http.ts';
import { goodPage } from '../helpers/fixture-site.ts';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/services.ts';

const real = Boolean(TEST_DATABASE_URL && TEST_REDIS_URL);
/** Logical Redis database of this file (test/cluster uses 5). */
const REDIS_DB = 7;
const PAGES = 24;

/** `/p0` ... `/p23`, each linking to the next two; every page answers after `delayMs`. */
async function startSlowSite(delayMs: number) {
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const n = /^\/p(\d+)$/.exec(path)?.[1];
    if (n === undefined || Number(n) >= PAGES) {
      res.writeHead(404, { 'content-type': 'text/html' });
      return res.end('<!doctype html><title>Not found</title>');
    }
    const next = [Number(n) + 1, Number(n) + 2].filter((i) => i < PAGES).map((i) => `<a href="/p${i}">p${i}</a>`);
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(goodPage(`Page ${n}`).replace('</body>', `${next.join(' ')}</body>`));
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe.runIf(real)('an audit on three instances, one killed mid-audit', () => {
  let cluster: Cluster;
  let db: Database;
  let site: Awaited<ReturnType<typeof startSlowSite>>;

  beforeAll(async () => {
    site = await startSlowSite(1500);
    cluster = await startCluster({
      redisUrl: redisDbUrl(TEST_REDIS_URL!, REDIS_DB),
      env: {
        ANALYZER_ALLOW_PRIVATE: 'true',
        QUEUE_MONITOR_SECONDS: '2',
        AUDIT_HOST_CONCURRENCY: '6',
        AUDIT_HOST_DELAY_MS: '0',
        AUDIT_WORKERS: '2',
        // One key's audit on every worker of the three instances: the per-key share is not what this tests.
        AUDIT_KEY_WORKERS: '6',
      },
    });
    db = await initORM({ databaseUrl: cluster.databaseUrl }, { pool: { min: 0, max: 2 } });
  }, 120_000);

  afterAll(async () => {
    await db?.close();
    await cluster?.stop();
    await site?.close();
  });

  it('completes with every page exactly once', async () => {
    // Each instance starts its queue while it starts serving: 503 until it runs.
    let created = { status: 503, body: undefined as any };
    for (let i = 0; i < 120 && created.status === 503; i++) {
      if (i) await new Promise((r) => setTimeout(r, 500));
      created = await request(`${cluster.urls[0]}/api/v1/audits`, {
        method: 'POST',
        key: cluster.apiKey,
        json: { url: `${site.url}/p0`, max_pages: PAGES },
      });
    }
    expect(created.status).toBe(202);
    const id = created.body.data.id as number;
    const read = async (url = cluster.urls[0]) =>
      (await request(`${url}/api/v1/audits/${id}`, { key: cluster.apiKey })).body.data;

    // Wait until pages are being worked on by the instances, then kill one without warning.
    const deadline = Date.now() + 60_000;
    while ((await read()).progress.done < 4) {
      if (Date.now() > deadline) throw new Error('the audit did not start');
      await new Promise((r) => setTimeout(r, 200));
    }
    const active = await db.orm.em
      .getConnection()
      .execute<Array<{ n: number }>>(
        `select count(*)::int as n from pgboss.job where name = 'audit-page' and state = 'active'`,
      );
    expect(active[0].n).toBeGreaterThan(0);
    await cluster.instances[1].kill();

    const end = Date.now() + 120_000;
    let audit = await read();
    while (audit.status !== 'completed' && audit.status !== 'failed') {
      if (Date.now() > end) throw new Error(`the audit did not finish: ${JSON.stringify(audit.progress)}`);
      await new Promise((r) => setTimeout(r, 500));
      audit = await read(cluster.urls[2]);
    }
    expect(audit.status).toBe('completed');
    expect(audit.progress).toEqual({ done: PAGES, failed: 0, total: PAGES });

    const rows = await db.orm.em
      .getConnection()
      .execute<Array<{ url: string; attempts: number; reports: number }>>(
        `select p.url, p.attempts, (select count(*)::int from reports r where r.id = p.report_id) as reports from audit_pages p`,
      );
    expect(rows).toHaveLength(PAGES);
    expect(new Set(rows.map((r) => r.url)).size).toBe(PAGES);
    expect(rows.every((r) => r.reports === 1)).toBe(true);
    // One report per page in the project, none twice (a retried page stored no second report).
    const [{ n }] = await db.orm.em
      .getConnection()
      .execute<Array<{ n: number }>>(`select count(*)::int as n from reports`);
    expect(n).toBe(PAGES);
    const retried = rows.filter((r) => r.attempts > 1).length;
    console.log(`pages taken up again after the kill: ${retried}`);
  }, 240_000);
});
