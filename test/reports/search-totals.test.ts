import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReport, deleteReport, updateReport } from '../../src/reports/reports.ts';
import { deleteProject } from '../../src/reports/projects.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { request } from '../helpers/http.ts';
import { syntheticAnalysis } from '../helpers/analysis.ts';

// Search totals are counted once per state of a user's reports (src/reports/search-totals.ts).
// Each test reads a total first (so it is remembered), writes in one of the ways reports
// change, and expects the next total to be the database's own count again.

let services: TestServices;
let server: TestServer;
let owner: { key: string; user: { id: number } };
let other: { key: string; user: { id: number } };

beforeAll(async () => {
  services = await openTestServices({ store: 'memory' });
  server = await startTestServer(services);
  owner = await createKeyedUser(services, 'owner');
  other = await createKeyedUser(services, 'other');
  for (let i = 0; i < 12; i++) {
    await createReport(
      services.orm.em.fork(),
      owner.user.id,
      { privacy: 1 },
      syntheticAnalysis(`https://${i % 2 ? 'odd' : 'even'}.test/needle-${i}`, 50 + i),
    );
  }
  await createReport(
    services.orm.em.fork(),
    other.user.id,
    { privacy: 1 },
    syntheticAnalysis('https://x.test/needle', 90),
  );
});
afterAll(async () => {
  await server?.close();
  await services?.cleanup();
});

const em = () => services.orm.em.fork();
const sql = (query: string, params: unknown[] = []) =>
  em().getConnection().execute<Array<Record<string, unknown>>>(query, params);

async function total(search: string, extra = '', key = owner.key): Promise<number> {
  const res = await request(`${server.url}/api/v1/reports?search=${encodeURIComponent(search)}${extra}`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.meta.total as number;
}

/** The database's own count of what `search` should match. */
async function counted(search: string, userId = owner.user.id, where = ''): Promise<number> {
  const [row] = await sql(`select count(*)::int as n from reports where user_id = ? and url ilike ?${where}`, [
    userId,
    `%${search}%`,
  ]);
  return row.n as number;
}

async function version(userId = owner.user.id): Promise<string> {
  const [row] = await sql('select reports_version::text as v from users where id = ?', [userId]);
  return row.v as string;
}

describe('exact search totals', () => {
  it('counts each search once per state of the reports, and only the caller’s', async () => {
    expect(await total('needle')).toBe(12);
    expect(await total('needle')).toBe(12);
    expect(await total('needle', '&page=2&per_page=10')).toBe(12);
    expect(await total('needle', '&result=good')).toBe(await counted('needle', owner.user.id, ` and result = 'good'`));
    expect(await total('needle', '&project=odd.test')).toBe(6);
    expect(await total('needle', '', other.key)).toBe(1);
    // Reading changes nothing.
    const before = await version();
    await total('needle-1');
    expect(await version()).toBe(before);
  });

  it('sees a new report', async () => {
    expect(await total('needle')).toBe(12);
    const v = await version();
    await createReport(em(), owner.user.id, { privacy: 1 }, syntheticAnalysis('https://even.test/needle-new', 70));
    expect(await version()).not.toBe(v);
    expect(await total('needle')).toBe(13);
    expect(await total('needle', '', other.key)).toBe(1);
  });

  it('sees a re-analysis that moves a report out of a search', async () => {
    const before = await total('needle-3');
    const [{ id }] = await sql(`select id from reports where user_id = ? and url like '%/needle-3'`, [owner.user.id]);
    await updateReport(em(), owner.user.id, id as number, {
      password: { kind: 'keep' },
      analysis: syntheticAnalysis('https://odd.test/moved-away', 60),
    });
    expect(await total('needle-3')).toBe(before - 1);
    expect(await total('moved-away')).toBe(1);
  });

  it('sees a deleted report and a deleted project', async () => {
    const before = await total('needle');
    const [{ id }] = await sql(`select id from reports where user_id = ? and url like '%/needle-0'`, [owner.user.id]);
    await deleteReport(em(), owner.user.id, id as number);
    expect(await total('needle')).toBe(before - 1);
    await deleteProject(em(), owner.user.id, 'odd.test');
    expect(await total('needle')).toBe(await counted('needle'));
    expect(await total('needle', '&project=odd.test')).toBe(0);
  });

  it('changes nothing when a write finds nothing to write', async () => {
    const before = await version();
    expect(await deleteProject(em(), owner.user.id, 'no-such-project.test')).toBe(false);
    await expect(deleteReport(em(), owner.user.id, 2_000_000_000)).rejects.toMatchObject({ code: 'ERR_NOT_FOUND' });
    expect(await version()).toBe(before);
  });

  it('sees writes it did not make (another instance, or SQL by hand): the database keeps the version', async () => {
    const before = await total('needle');
    await sql(
      `insert into reports (user_id, url, full_url, project, result, score, results, privacy, generated_at, created_at, updated_at)
       values (?, 'even.test/needle-by-hand', 'http://even.test/needle-by-hand', 'even.test', 'decent', 60, '{}', 1, now(), now(), now())`,
      [owner.user.id],
    );
    expect(await total('needle')).toBe(before + 1);
    await sql(`update reports set url = 'even.test/renamed' where user_id = ? and url = 'even.test/needle-by-hand'`, [
      owner.user.id,
    ]);
    expect(await total('needle')).toBe(before);
    await sql(`delete from reports where user_id = ? and url = 'even.test/renamed'`, [owner.user.id]);
    expect(await total('renamed')).toBe(0);
  });

  it('keeps one lock order: concurrent creates, deletes and a project delete of one user all finish', async () => {
    const busy = await createKeyedUser(services, 'busy');
    const user = busy.user;
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await createReport(em(), user.id, { privacy: 1 }, syntheticAnalysis(`https://busy.test/p-${i}`, 80));
      ids.push(r.id);
    }
    expect(await total('.test', '', busy.key)).toBe(6);
    const writes = [
      ...ids.slice(0, 3).map((id) => deleteReport(em(), user.id, id)),
      ...Array.from({ length: 6 }, (_, i) =>
        createReport(em(), user.id, { privacy: 1 }, syntheticAnalysis(`https://busy.test/q-${i}`, 40)),
      ),
      deleteProject(em(), user.id, 'busy.test'),
      ...Array.from({ length: 3 }, (_, i) =>
        createReport(em(), user.id, { privacy: 1 }, syntheticAnalysis(`https://calm.test/r-${i}`, 40)),
      ),
    ];
    const outcomes = await Promise.allSettled(writes);
    // Deletes may find their report gone (the project went first); nothing may deadlock.
    for (const o of outcomes) {
      if (o.status === 'rejected') expect((o.reason as { code?: string }).code).toBe('ERR_NOT_FOUND');
    }
    const [{ n }] = await sql('select count(*)::int as n from reports where user_id = ?', [user.id]);
    const [{ sum }] = await sql('select coalesce(sum(reports_count), 0)::int as sum from projects where user_id = ?', [
      user.id,
    ]);
    expect(sum).toBe(n);
    expect(await total('.test', '', busy.key)).toBe(n);
  });
});
