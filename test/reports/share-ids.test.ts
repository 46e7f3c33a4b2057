import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initORM } from '../../src/db/orm.ts';
import { freshPostgresDatabase, TEST_DATABASE_URL } from '../helpers/services.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { request } from '../helpers/http.ts';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.ts';
import { migratorOf } from '../../src/db/migrator.ts';

let services: TestServices;
let server: TestServer;
let site: FixtureSite;
let alice: { key: string };

beforeAll(async () => {
  services = await openTestServices({ env: { ANALYZER_ALLOW_PRIVATE: 'true' } });
  server = await startTestServer(services);
  site = await startFixtureSite();
  alice = await createKeyedUser(services, 'alice');
});
afterAll(async () => {
  await server?.close();
  await site?.close();
  await services?.cleanup();
});

const api = (path: string) => `${server.url}${path}`;
const SHARE_URL = /^\/reports\/[A-Za-z0-9_-]{22}$/;

async function make(form: Record<string, string>) {
  const res = await request(api('/api/v1/reports'), {
    method: 'POST',
    key: alice.key,
    form: { url: `${site.url}/good`, ...form },
  });
  expect(res.status).toBe(201);
  return res.body.data as { id: number; share_url: string };
}

describe('share pages under unguessable ids', () => {
  it('each report gets its own random share_url; the numeric id stays the API id', async () => {
    const a = await make({ privacy: '0' });
    const b = await make({ privacy: '0' });
    expect(a.share_url).toMatch(SHARE_URL);
    expect(b.share_url).toMatch(SHARE_URL);
    expect(a.share_url).not.toBe(b.share_url);
    expect(b.id).toBe(a.id + 1);

    const one = await request(api(`/api/v1/reports/${a.id}`), { key: alice.key });
    expect(one.body.data.share_url).toBe(a.share_url);
    const list = await request(api('/api/v1/reports'), { key: alice.key });
    expect(list.body.data.map((r: { share_url: string }) => r.share_url)).toEqual(
      expect.arrayContaining([a.share_url, b.share_url]),
    );
    // The OpenAPI document describes it.
    const doc = await request(api('/api/openapi.json'));
    expect(JSON.stringify(doc.body)).toContain('share_url');
  });

  it('the share page answers at share_url; the old numeric /reports/{n} is a 404 for every report', async () => {
    const shared = await make({ privacy: '0' });
    const page = await fetch(api(shared.share_url));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Score');
    expect((await fetch(api(`/reports/${shared.id}`))).status).toBe(404);

    const locked = await make({ privacy: '2', password: 'letmein' });
    const form = await fetch(api(locked.share_url));
    expect(form.status).toBe(200);
    expect(await form.text()).toContain(`action="${locked.share_url}"`);
    // Walking numeric ids tells nothing: public, password and missing look alike.
    for (const id of [locked.id, shared.id, 999_999]) {
      const res = await fetch(api(`/reports/${id}`));
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain('type="password"');
    }
    // A share id differing in one character is another page: not found.
    const other = locked.share_url.slice(0, -1) + (locked.share_url.endsWith('A') ? 'B' : 'A');
    expect((await fetch(api(other))).status).toBe(404);
  });

  it('the migration gives existing rows distinct share ids, and SQL inserts get one by default', async () => {
    const pg = TEST_DATABASE_URL ? await freshPostgresDatabase(TEST_DATABASE_URL) : undefined;
    const db = await initORM({ databaseUrl: pg?.url });
    try {
      const migrator = migratorOf(db.orm);
      await migrator.up({ to: 'Migration20261121104921' });
      const conn = db.orm.em.getConnection();
      await conn.execute(
        `insert into users (name, email, created_at, updated_at) values ('old', 'old@example.test', now(), now())`,
      );
      const rows = Array.from(
        { length: 50 },
        (_, i) =>
          `((select id from users limit 1), 'http://old.example/${i}', 'old.example', 'bad', 10, '{}', 0, now(), now(), now())`,
      );
      await conn.execute(
        `insert into reports (user_id, url, project, result, score, results, privacy, generated_at, created_at, updated_at) values ${rows.join(',')}`,
      );
      await migrator.up();
      const ids = (await conn.execute<{ share_id: string }[]>(`select share_id from reports`)).map((r) => r.share_id);
      expect(ids).toHaveLength(50);
      for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(new Set(ids).size).toBe(50);

      await conn.execute(
        `insert into reports (user_id, url, full_url, project, result, score, results, privacy, generated_at, created_at, updated_at)
         values ((select id from users limit 1), 'old.example/0', 'http://old.example/0', 'old.example', 'bad', 10, '{}', 0, now(), now(), now())`,
      );
      const [latest] = await conn.execute<{ share_id: string }[]>(
        `select share_id from reports order by id desc limit 1`,
      );
      expect(latest.share_id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      await expect(
        conn.execute(`update reports set share_id = '${ids[1]}' where share_id = '${ids[0]}'`),
      ).rejects.toThrow();
    } finally {
      await db.close();
      await pg?.drop();
    }
  }, 60_000);
});

describe('share_url under PUBLIC_URL', () => {
  it('is absolute under the configured public address, never the request Host', async () => {
    const own = await openTestServices({
      env: { ANALYZER_ALLOW_PRIVATE: 'true', PUBLIC_URL: 'https://audit.example/base' },
    });
    const ownServer = await startTestServer(own);
    try {
      const { key } = await createKeyedUser(own, 'pub');
      const res = await request(`${ownServer.url}/api/v1/reports`, {
        method: 'POST',
        key,
        headers: { 'X-Forwarded-Host': 'evil.example' },
        form: { url: `${site.url}/good`, privacy: '0' },
      });
      expect(res.status).toBe(201);
      expect(res.body.data.share_url).toMatch(/^https:\/\/audit\.example\/base\/reports\/[A-Za-z0-9_-]{22}$/);
      const path = new URL(res.body.data.share_url).pathname.replace('/base', '');
      expect((await fetch(`${ownServer.url}${path}`)).status).toBe(200);
    } finally {
      await ownServer.close();
      await own.cleanup();
    }
  }, 60_000);
});
