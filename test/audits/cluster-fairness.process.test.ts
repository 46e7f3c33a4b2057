/**
 * Fair shares of the audit workers across instances: two service processes on one PostgreSQL,
 * key A with two 30-page audits of slow pages, key B with a 3-page audit. A never has more than
 * AUDIT_KEY_WORKERS pages active on both instances together, and B's audit completes while A's
 * are far from done.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { createUser } from '../../src/accounts/users.ts';
import { initORM, type Database } from '../../src/db/orm.ts';
import { redisDbUrl, startCluster, type Cluster } from '../helpers/cluster.ts';
import { goodPage } from '../helpers/fixture-site.ts';
import { request } from '../helpers/http.ts';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/services.ts';

const real = Boolean(TEST_DATABASE_URL && TEST_REDIS_URL);
/** Logical Redis database of this file (test/cluster uses 5, the crash test 7). */
const REDIS_DB = 8;

/** `/` links to `/p0`...`/p{n-1}`; pages under `/slow` answer after `delayMs`. */
async function startSite(delayMs: number, n: number) {
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const links = Array.from(
      { length: n },
      (_, i) => `<a href="${path.startsWith('/slow') ? '/slow' : ''}/p${i}">p</a>`,
    );
    const answer = () => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(goodPage(`Page ${path}`).replace('</body>', `${links.join(' ')}</body>`));
    };
    if (path.startsWith('/slow')) setTimeout(answer, delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

describe.runIf(real)('audits of two keys on two instances', () => {
  let cluster: Cluster;
  let db: Database;
  let site: Awaited<ReturnType<typeof startSite>>;
  let a: string;
  let b: string;
  let userA: number;

  beforeAll(async () => {
    site = await startSite(6000, 30);
    cluster = await startCluster({
      instances: 2,
      redisUrl: redisDbUrl(TEST_REDIS_URL!, REDIS_DB),
      env: {
        ANALYZER_ALLOW_PRIVATE: 'true',
        // A busy machine must not fail A's 6 s pages: the share, not the deadline, is under test.
        ANALYZER_TIMEOUT_MS: '60000',
        API_RATE_LIMIT: '100000',
        QUEUE_MONITOR_SECONDS: '2',
        AUDIT_HOST_DELAY_MS: '0',
        AUDIT_HOST_CONCURRENCY: '8',
        AUDIT_WORKERS: '2',
        AUDIT_KEY_WORKERS: '2',
      },
    });
    db = await initORM({ databaseUrl: cluster.databaseUrl }, { pool: { min: 0, max: 2 } });
    const em = db.orm.em.fork();
    for (const name of ['a', 'b']) {
      const user = await createUser(em, { name, email: `${name}@fairness.test` });
      const { key } = await createApiKey(em, user, 'test');
      if (name === 'a') [a, userA] = [key, user.id];
      else b = key;
    }
  }, 120_000);

  afterAll(async () => {
    await db?.close();
    await cluster?.stop();
    await site?.close();
  });

  const post = async (key: string, json: unknown) => {
    for (let i = 0; ; i++) {
      const res = await request(`${cluster.urls[i % 2]}/api/v1/audits`, { method: 'POST', key, json });
      if (res.status !== 503 || i > 120) return res;
      await new Promise((r) => setTimeout(r, 500));
    }
  };
  const read = async (key: string, id: number) =>
    (await request(`${cluster.urls[1]}/api/v1/audits/${id}`, { key })).body.data;
  const activeOfA = async () =>
    (
      await db.orm.em
        .getConnection()
        .execute<Array<{ n: number }>>(
          `select count(*)::int as n from pgboss.job where name = 'audit-page' and state = 'active' and singleton_key like ?`,
          [`user-${userA}#%`],
        )
    )[0].n;

  it("B's audit completes while A's 60 slow pages hold their share", async () => {
    const theirs = [
      (await post(a, { url: `${site.url}/slow`, max_pages: 30 })).body.data.id as number,
      (await post(a, { url: `${site.url}/slow/again`, max_pages: 30 })).body.data.id as number,
    ];
    const deadline = Date.now() + 60_000;
    while ((await activeOfA()) === 0) {
      if (Date.now() > deadline) throw new Error("A's pages did not start");
      await new Promise((r) => setTimeout(r, 200));
    }
    const created = await post(b, { url: `${site.url}/`, max_pages: 3 });
    expect(created.status).toBe(202);
    let most = 0;
    let done: Record<string, any> | undefined;
    const end = Date.now() + 60_000;
    while (!done) {
      most = Math.max(most, await activeOfA());
      const data = await read(b, created.body.data.id);
      if (data.status === 'completed' || data.status === 'failed') done = data;
      else if (Date.now() > end) throw new Error(`B's audit did not finish: ${JSON.stringify(data.progress)}`);
      else await new Promise((r) => setTimeout(r, 200));
    }
    expect(done.status).toBe('completed');
    expect(done.progress).toEqual({ done: 3, failed: 0, total: 3 });
    expect(most).toBeLessThanOrEqual(2);
    for (const id of theirs) expect((await read(a, id)).status).toBe('running');
  }, 180_000);
});
