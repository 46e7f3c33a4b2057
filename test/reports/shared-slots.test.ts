/**
 * Each API key's share of the analyzer held across instances (src/reports/shared-slots.ts): the
 * leases themselves on the embedded database and on PostgreSQL (TEST_DATABASE_URL), a report
 * whose key's slots are all held elsewhere (503 after its wait, through HTTP), then two
 * service processes on one PostgreSQL whose concurrent reports for one key never run more
 * analyses at once, both together, than the key's share.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initORM, migrate, type Database } from '../../src/db/orm.ts';
import { databaseSlots, ShareWaitTimeout, type SlotLease } from '../../src/reports/shared-slots.ts';
import { redisDbUrl, startCluster, type Cluster } from '../helpers/cluster.ts';
import { goodPage, startFixtureSite, type FixtureSite } from '../helpers/fixture-site.ts';
import { request } from '../helpers/http.ts';
import {
  createKeyedUser,
  freshPostgresDatabase,
  openTestServices,
  startTestServer,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';

const targets = [{ name: 'PGlite', url: undefined as string | undefined }];
if (TEST_DATABASE_URL) targets.push({ name: 'PostgreSQL', url: TEST_DATABASE_URL });

describe.each(targets)('slot leases on $name', ({ url }) => {
  let db: Database;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const pg = url ? await freshPostgresDatabase(url) : undefined;
    drop = pg ? () => pg.drop() : undefined;
    db = await initORM({ databaseUrl: pg?.url });
    await migrate(db.orm);
  }, 120_000);
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  const held = async (tenant: string) =>
    (
      await db.orm.em
        .getConnection()
        .execute<Array<{ slot: number }>>('select slot from analyzer_slots where tenant = ? order by slot', [tenant])
    ).map((r) => r.slot);

  it('gives a key its share and no more, and a freed slot to the one waiting', async () => {
    // Two "instances": two lease sets on one database.
    const a = databaseSlots(db.orm, { perTenant: 2, queued: 0, waitMs: 60_000 });
    const b = databaseSlots(db.orm, { perTenant: 2, queued: 0, waitMs: 60_000 });
    const first = await a.acquire('k1');
    const second = await b.acquire('k1');
    expect([first.slot, second.slot].sort()).toEqual([0, 1]);
    let third: SlotLease | undefined;
    const waiting = b.acquire('k1').then((lease) => (third = lease));
    // Another key is not held back by k1's.
    const other = await a.acquire('k2');
    await other.release();
    await new Promise((r) => setTimeout(r, 300));
    expect(third).toBeUndefined();
    await first.release(); // on the other "instance": b finds it by polling
    await waiting;
    expect(third!.slot).toBe(first.slot);
    await second.release();
    await third!.release();
    await third!.release(); // a second release does nothing
    expect(await held('k1')).toEqual([]);
  });

  it('fails with the key-busy error when no slot frees in time', async () => {
    const slots = databaseSlots(db.orm, { perTenant: 1, queued: 3, waitMs: 200 });
    const lease = await slots.acquire('k3');
    const err = await slots.acquire('k3').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShareWaitTimeout);
    expect((err as ShareWaitTimeout).limits).toEqual({ running: 1, queued: 3 });
    await lease.release();
  });

  it('takes over a lease that ran out (its instance stopped without giving it back)', async () => {
    const stopped = databaseSlots(db.orm, { perTenant: 1, queued: 0, waitMs: 0 });
    await stopped.acquire('k4'); // never released, never renewed again: as a killed process leaves it
    await db.orm.em
      .getConnection()
      .execute(`update analyzer_slots set expires_at = now() - interval '1 second' where tenant = 'k4'`);
    const slots = databaseSlots(db.orm, { perTenant: 1, queued: 0, waitMs: 0 });
    const lease = await slots.acquire('k4');
    expect(lease.slot).toBe(0);
    await lease.release();
    expect(await held('k4')).toEqual([]);
  });
});

/** Pages `/slow/<n>` answered after `delayMs`, with the most analyses seen fetching them at once. */
async function startSlowSite(delayMs: number) {
  let inFlight = 0;
  let most = 0;
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (!/^\/slow\/\d+$/.test(path)) {
      res.writeHead(404, { 'content-type': 'text/html' });
      return res.end('<!doctype html><title>Not found</title>');
    }
    inFlight++;
    most = Math.max(most, inFlight);
    setTimeout(() => {
      inFlight--;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(goodPage(`Slow ${path}`));
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    most: () => most,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const real = Boolean(TEST_DATABASE_URL && TEST_REDIS_URL);
/** Logical Redis database of this file (test/cluster 5, test/audits 7, bench 9). */
const REDIS_DB = 6;
const SHARE = 2;

describe.runIf(real)('one key on two instances', () => {
  let cluster: Cluster;
  let site: Awaited<ReturnType<typeof startSlowSite>>;
  beforeAll(async () => {
    site = await startSlowSite(800);
    cluster = await startCluster({
      instances: 2,
      redisUrl: redisDbUrl(TEST_REDIS_URL!, REDIS_DB),
      env: {
        ANALYZER_ALLOW_PRIVATE: 'true',
        ANALYZER_RENDER: 'never',
        ANALYZER_KEY_CONCURRENCY: String(SHARE),
        ANALYZER_KEY_QUEUE: '8',
        ANALYZER_KEY_WAIT_MS: '120000',
        API_RATE_LIMIT: '100000',
      },
    });
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
    await site?.close();
  });

  it('never runs more of its analyses at once, both together, than its share', async () => {
    const key = cluster.apiKey;
    // Each instance alone would run SHARE at once: 2 x SHARE together without the shared slots.
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        request(`${cluster.urls[i % 2]}/api/v1/reports`, {
          method: 'POST',
          key,
          form: { url: `${site.url}/slow/${i}` },
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    console.log(`most analyses of the key at once on two instances: ${site.most()} (share ${SHARE})`);
    expect(site.most()).toBeLessThanOrEqual(SHARE);
    expect(site.most()).toBeGreaterThan(0);
  }, 180_000);
});

describe('a report whose key has every slot held elsewhere', () => {
  let services: TestServices;
  let server: TestServer;
  let site: FixtureSite;
  beforeAll(async () => {
    site = await startFixtureSite();
    services = await openTestServices({
      env: { ANALYZER_ALLOW_PRIVATE: 'true', ANALYZER_KEY_CONCURRENCY: '1', ANALYZER_KEY_WAIT_MS: '300' },
    });
    server = await startTestServer(services);
  });
  afterAll(async () => {
    await server?.close();
    await services?.cleanup();
    await site?.close();
  });

  it('waits, then answers 503 ERR_ANALYZER_KEY_BUSY with Retry-After; with the slot back, 201', async () => {
    const { user, key } = await createKeyedUser(services, 'held');
    // Another instance on the same database holds the account's one slot.
    const elsewhere = databaseSlots(services.orm, { perTenant: 1, queued: 0, waitMs: 0 });
    const lease = await elsewhere.acquire(String(user.id));
    const busy = await request(`${server.url}/api/v1/reports`, {
      method: 'POST',
      key,
      form: { url: `${site.url}/good` },
    });
    expect(busy.status).toBe(503);
    expect(busy.body).toMatchObject({ code: 'ERR_ANALYZER_KEY_BUSY', status: 503 });
    expect(Number(busy.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another key is not held back by it.
    const other = await createKeyedUser(services, 'free');
    const theirs = await request(`${server.url}/api/v1/reports`, {
      method: 'POST',
      key: other.key,
      form: { url: `${site.url}/good` },
    });
    expect(theirs.status).toBe(201);
    await lease.release();
    const created = await request(`${server.url}/api/v1/reports`, {
      method: 'POST',
      key,
      form: { url: `${site.url}/good` },
    });
    expect(created.status).toBe(201);
  });
});
