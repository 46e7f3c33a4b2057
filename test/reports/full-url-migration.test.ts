/**
 * Migration20261128160000: a report's full address moves out of the `seo_friendly_url` check's
 * value into a column of its own; rows whose value is not a URL get `http://` and the short
 * form, which is what the code read for them before. Runs on the embedded database, and on
 * PostgreSQL too when TEST_DATABASE_URL is set.
 */
import { describe, expect, it } from 'vitest';
import { migratorOf } from '../../src/db/migrator.ts';
import { unmigratedTargets } from '../helpers/unmigrated.ts';

const before = 'Migration20261128140000';

describe.each(unmigratedTargets())('the full-URL column ($name)', (target) => {
  it('is filled from the stored check value, or from the short form', async () => {
    const db = await target.open();
    const conn = db.orm.em.getConnection();
    const run = (sql: string, params: unknown[] = []) => conn.execute(sql, params, 'all');
    await migratorOf(db.orm).up({ to: before });
    const [user] = await run(
      `insert into users (name, email, created_at, updated_at) values ('Ada', 'ada@example.test', now(), now()) returning id`,
    );
    const insert = (url: string, results: unknown) =>
      run(
        `insert into reports (user_id, url, project, result, score, results, privacy, generated_at, created_at, updated_at)
         values (?, ?, 'example.com', 'bad', 10, ?, 1, now(), now(), now()) returning id`,
        [user.id, url, JSON.stringify(results)],
      );
    const seo = (value: unknown) => ({
      seo_friendly_url: { passed: true, importance: 'high', value, category: 'seo', details: [] },
    });
    const [full] = await insert('example.com/guide', seo('https://www.example.com/guide?page=2'));
    const [notUrl] = await insert('example.com/odd', seo(null));
    const [none] = await insert('example.com', {});

    await migratorOf(db.orm).up();
    const rows = await run(`select id, full_url from reports order by id`);
    expect(rows).toEqual([
      { id: full.id, full_url: 'https://www.example.com/guide?page=2' },
      { id: notUrl.id, full_url: 'http://example.com/odd' },
      { id: none.id, full_url: 'http://example.com' },
    ]);
    await expect(
      run(
        `insert into reports (user_id, url, project, result, score, results, privacy, generated_at, created_at, updated_at)
         values (?, 'example.com/x', 'example.com', 'bad', 10, '{}', 1, now(), now(), now())`,
        [user.id],
      ),
    ).rejects.toThrow(/full_url/);
  }, 60_000);
});
