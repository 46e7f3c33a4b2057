import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initORM, type Database } from '../../src/db/orm.ts';
import { createUser } from '../../src/accounts/users.ts';
import { createSite } from '../../src/captcha/sites.ts';
import { redisDbUrl, startCluster, type Cluster } from '../helpers/cluster.ts';
import { request } from '../helpers/http.ts';
import { browser, v3Token } from '../helpers/captcha.ts';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.ts';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/services.ts';
import { forwardAuth } from '../gateway/proxies.ts';
import { STAMP_MAX_AGE_MS } from '../../src/gateway/registry.ts';

// Several processes need a real PostgreSQL and Redis: registered only when CI names both.
// Then an unreachable server fails the suite (startCluster throws in beforeAll).
const real = Boolean(TEST_DATABASE_URL && TEST_REDIS_URL);

/** Logical Redis database of this file: bin/server.ts writes under the default key prefix. */
const REDIS_DB = 5;

/**
 * Client addresses unique to this run, so counters left in Redis by an earlier run never match;
 * each in its own /64, since IPv6 clients are counted by network.
 */
const run = randomBytes(4).toString('hex').match(/.{4}/g)!.join(':');
const address = (i: number) => `fd00:${run}:${i.toString(16)}::1`;
let addresses = 0;
const nextAddress = () => address(++addresses);

/** Runs `fn` over `items`, at most `width` at a time. */
async function inBatches<T, R>(items: T[], width: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += width) {
    out.push(...(await Promise.all(items.slice(i, i + width).map((item, j) => fn(item, i + j)))));
  }
  return out;
}

describe.runIf(real)('three instances on one PostgreSQL and one Redis', () => {
  let cluster: Cluster;
  let db: Database;
  let fixture: FixtureSite;
  let site: { sitekey: string; secret: string };
  const origin = 'https://shop.example';

  beforeAll(async () => {
    fixture = await startFixtureSite();
    cluster = await startCluster({
      redisUrl: redisDbUrl(TEST_REDIS_URL!, REDIS_DB),
      // No environment proof here: this suite is about instances sharing state, not scores, and
      // three Chromiums starting on the first challenges would only slow it down.
      env: { ANALYZER_ALLOW_PRIVATE: 'true', CAPTCHA_ENGINE: 'never' },
    });
    db = await initORM({ databaseUrl: cluster.databaseUrl }, { pool: { min: 0, max: 2 } });
    const em = db.orm.em.fork();
    const owner = await createUser(em, { name: 'cluster-site-owner' });
    // Its tokens (work only, no engine proof: 0.3) pass: the site takes every score.
    const created = await createSite(em, owner.id, {
      name: 'cluster',
      origins: [origin],
      security_level: 'low',
      min_score: 0,
    });
    site = { sitekey: created.site.sitekey, secret: created.secret };
  }, 120_000);

  afterAll(async () => {
    await db?.close();
    await cluster?.stop();
    await fixture?.close();
  });

  it('bootstraps one account: exactly one instance prints an API key, valid on all', async () => {
    expect(cluster.keysPrinted).toBe(1);
    for (const url of cluster.urls) {
      expect((await request(`${url}/api/v1/account`, { key: cluster.apiKey })).status).toBe(200);
    }
  });

  it('redeems each of 50 tokens exactly once out of 10 concurrent siteverify calls over 3 processes', async () => {
    const tokens = await inBatches(Array.from({ length: 50 }), 10, async () => {
      const res = await v3Token(cluster.pick(), { sitekey: site.sitekey, origin, ip: nextAddress() });
      expect(res.status).toBe(201);
      return res.body.token as string;
    });
    expect(new Set(tokens).size).toBe(50);

    const verdicts = await inBatches(tokens, 20, async (token) => {
      const calls = Array.from({ length: 10 }, (_, j) =>
        request(`${cluster.urls[j % cluster.urls.length]}/api/v1/siteverify`, {
          method: 'POST',
          headers: { 'X-Forwarded-For': nextAddress() },
          json: { secret: site.secret, response: token },
        }),
      );
      return Promise.all(calls);
    });
    const all = verdicts.flat();
    expect(all).toHaveLength(500);
    expect(all.every((r) => r.status === 200)).toBe(true);
    const successesPerToken = verdicts.map((rs) => rs.filter((r) => r.body.success === true).length);
    expect(successesPerToken.every((n) => n === 1)).toBe(true);
    expect(all.filter((r) => r.body.success === true)).toHaveLength(50);
    for (const r of all) {
      if (r.body.success)
        expect(r.body).toMatchObject({ hostname: 'shop.example', action: 'login', score: expect.any(Number) });
      else expect(r.body['error-codes']).toEqual(['timeout-or-duplicate']);
    }
  }, 120_000);

  it('holds the per-address challenge limit in total: 60 pass round-robin, the 61st is refused on every process', async () => {
    const ip = nextAddress();
    const create = (url: string, from = ip) =>
      request(`${url}/api/v1/challenges`, {
        method: 'POST',
        headers: browser(origin, from),
        json: { sitekey: site.sitekey },
      });
    const first = await inBatches(Array.from({ length: 60 }), 10, () => create(cluster.pick()));
    expect(first.map((r) => r.status)).toEqual(Array(60).fill(201));
    for (const url of cluster.urls) {
      const refused = await create(url);
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ code: 'ERR_RATE_LIMITED', message: expect.any(String), status: 429 });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const other = nextAddress();
    for (const url of cluster.urls) expect((await create(url, other)).status).toBe(201);
  }, 60_000);

  it('lists, updates and deletes through one process the reports created through another', async () => {
    const [a, b, c] = cluster.urls as [string, string, string];
    const key = cluster.apiKey;
    const created = await request(`${a}/api/v1/reports`, {
      method: 'POST',
      key,
      form: { url: `${fixture.url}/good`, privacy: '1' },
    });
    expect(created.status).toBe(201);
    const { id, project } = created.body.data;

    const listed = await request(`${b}/api/v1/reports?per_page=10`, { key });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((r: { id: number }) => r.id)).toContain(id);
    const projects = await request(`${c}/api/v1/projects`, { key });
    expect(projects.body.data).toContainEqual(expect.objectContaining({ project, reports: 1 }));

    const updated = await request(`${c}/api/v1/reports/${id}`, {
      method: 'PUT',
      key,
      form: { privacy: '2', password: 'correct horse' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ id, privacy: 2, password: true });
    expect((await request(`${a}/api/v1/reports/${id}`, { key })).body.data).toMatchObject({
      privacy: 2,
      password: true,
    });

    const gone = await request(`${b}/api/v1/reports/${id}`, { method: 'DELETE', key });
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ id, object: 'report', deleted: true, status: 200 });
    expect((await request(`${c}/api/v1/reports/${id}`, { key })).status).toBe(404);
    expect((await request(`${a}/api/v1/reports/${id}`, { method: 'DELETE', key })).status).toBe(404);
    const after = await request(`${a}/api/v1/reports`, { key });
    expect(after.body.data.map((r: { id: number }) => r.id)).not.toContain(id);
    expect((await request(`${b}/api/v1/projects`, { key })).body.data).not.toContainEqual(
      expect.objectContaining({ project }),
    );
  }, 60_000);

  it('applies a gateway rule change saved through one process on every process within the stamp bound', async () => {
    const [a, b] = cluster.urls as [string, string, string];
    const key = cluster.apiKey;
    const host = `gw-${run.replaceAll(':', '')}.test`;
    const account = await request(`${a}/api/v1/account`, { key });
    const { site: protectedSite } = await createSite(db.orm.em.fork(), account.body.data.id as number, {
      name: 'gateway',
      origins: [`https://${host}`],
    });
    const settings = (url: string, rules: object[]) =>
      request(`${url}/api/v1/sites/${protectedSite.sitekey}/gateway`, {
        method: 'PUT',
        key,
        json: { gateway: { hosts: [host], rules } },
      });
    // A fetch() of /open/ without clearance, from a new client each time.
    const probe = (url: string) =>
      forwardAuth(url, host, { uri: '/open/page', proto: 'https', ip: nextAddress(), accept: '*/*' });
    expect((await settings(a, [])).status).toBe(200);
    // Every process has read the site (and cached it) before the change.
    for (const url of cluster.urls) expect((await probe(url)).status).toBe(401);
    const changed = await settings(b, [{ name: 'open', path: '/open/', action: 'allow' }]);
    expect(changed.status).toBe(200);
    // The process that saved it follows at once.
    expect((await probe(b)).headers['x-gateway-rule']).toBe('open');
    // A real wait: each process reads the stamp at most every STAMP_MAX_AGE_MS on its own
    // clock, so once that much time has passed since the save, every check on every process
    // follows the change (docs/gateway.md's bound), whatever each one read before it.
    await new Promise((r) => setTimeout(r, STAMP_MAX_AGE_MS));
    for (const url of cluster.urls) {
      const res = await probe(url);
      expect(res.status, url).toBe(204);
      expect(res.headers['x-gateway-rule']).toBe('open');
    }
  }, 60_000);
});
