/**
 * Migration20261122220300: reports stored in the old shape (arrays by category, our old ids,
 * full URL, old weights and bands) read like new ones afterwards, and project aggregates follow.
 * Runs on the embedded database, and on PostgreSQL too when TEST_DATABASE_URL is set.
 */
import { describe, expect, it } from 'vitest';
import { migrationsList } from '../../migrations/index.ts';
import { unmigratedTargets } from '../helpers/unmigrated.ts';
import { migratorOf } from '../../src/db/migrator.ts';

const before = 'Migration20261121104921';
const mine = 'Migration20261122220300';

const check = (
  id: string,
  category: string,
  importance: string,
  passed: boolean,
  value: unknown,
  details: unknown[] = [],
) => ({
  id,
  category,
  importance,
  passed,
  value,
  details,
});

/** An old-shape report: 9 checks, 3 of them passing under the new weights' eyes. */
const oldResults = {
  seo: [
    check('title', 'seo', 'high', true, 'A fine title for the page'),
    check('h1', 'seo', 'high', false, ['One', 'Two'], ['<h1>One</h1>', '<h1>Two</h1>']),
    check('image_alt', 'seo', 'medium', false, { images: 1, missingAlt: 1 }, ['<img src="/a.png">']),
    check('canonical', 'seo', 'medium', false, null, ['The page has no canonical link.']),
  ],
  performance: [check('compression', 'performance', 'high', false, null, ['The page is not compressed.'])],
  security: [check('https', 'security', 'high', true, 'https')],
  miscellaneous: [
    check('viewport', 'miscellaneous', 'high', true, 'width=device-width'),
    check('social_links', 'miscellaneous', 'low', false, [], ['No links to social profiles.']),
    check('doctype', 'miscellaneous', 'low', true, 'html'),
  ],
};

describe.each(unmigratedTargets())('the phpRank-shape migration ($name)', (target) => {
  it('reshapes results, renames ids, strips the URL, regrades and fixes project aggregates', async () => {
    const db = await target.open();
    const conn = db.orm.em.getConnection();
    const run = (sql: string, params: unknown[] = []) => conn.execute(sql, params, 'all');
    await migratorOf(db.orm).up({ to: before });

    const [user] = await run(
      `insert into users (name, email, created_at, updated_at) values ('Ada', 'ada@example.test', now(), now()) returning id`,
    );
    const insert = (url: string, score: number, result: string, results: unknown) =>
      run(
        `insert into reports (user_id, url, project, result, score, results, privacy, generated_at, created_at, updated_at)
         values (?, ?, 'example.com', ?, ?, ?::jsonb, 1, now(), now(), now()) returning id`,
        [user.id, url, result, score, JSON.stringify(results)],
      );
    const [full] = await insert('https://www.example.com/guide/', 55, 'decent', oldResults);
    const [empty] = await insert('https://www.example.com/', 49, 'bad', {
      seo: [],
      performance: [],
      security: [],
      miscellaneous: [],
    });
    await run(
      `insert into projects (user_id, name, reports_count, score_sum, good_count, decent_count, bad_count, created_at)
       values (?, 'example.com', 2, 104, 0, 1, 1, now())`,
      [user.id],
    );

    const applied = await migratorOf(db.orm).up();
    expect(applied.map((m) => m.name)).toContain(mine);

    const rows = await run('select id, url, score, result, results from reports order by id');
    const a = rows.find((r: any) => r.id === full.id)!;
    const b = rows.find((r: any) => r.id === empty.id)!;
    const results = typeof a.results === 'string' ? JSON.parse(a.results) : a.results;

    expect(Object.keys(results).sort()).toEqual(
      [
        'title',
        'headings',
        'image_keywords',
        'canonical',
        'text_compression',
        'https_encryption',
        'meta_viewport',
        'social',
        'doctype',
      ].sort(),
    );
    expect(results.title).toEqual({
      passed: true,
      importance: 'high',
      value: 'A fine title for the page',
      category: 'seo',
      details: [],
    });
    expect(results.headings).toEqual({
      passed: false,
      importance: 'high',
      value: ['One', 'Two'],
      errors: { too_many: null },
      category: 'seo',
      details: ['<h1>One</h1>', '<h1>Two</h1>'],
    });
    // phpRank's importances replace ours for its checks; extras keep theirs.
    expect(results.image_keywords).toMatchObject({ importance: 'high', errors: { missing: null } });
    expect(results.meta_viewport.importance).toBe('medium');
    expect(results.canonical).toMatchObject({ importance: 'medium', errors: { failed: null } });
    expect(results.social).toMatchObject({ importance: 'low', errors: { missing: null } });
    expect(results.https_encryption).not.toHaveProperty('errors');

    // high 10, medium 5, low 0: passed title, https_encryption, meta_viewport = 25 of 60.
    expect(a).toMatchObject({ url: 'example.com/guide/', score: 42, result: 'bad' });
    // Nothing to score: the score stays, the grade follows the new bands (49 is decent now).
    expect(b).toMatchObject({ url: 'example.com', score: 49, result: 'decent' });
    const empties = typeof b.results === 'string' ? JSON.parse(b.results) : b.results;
    expect(empties).toEqual({});

    const [project] = await run('select reports_count, score_sum, good_count, decent_count, bad_count from projects');
    expect(project).toMatchObject({ reports_count: 2, good_count: 0, decent_count: 1, bad_count: 1 });
    expect(Number(project.score_sum)).toBe(91);

    // Applying again changes nothing (already in the new shape): on the schema it ran on (the
    // migrations after it reverted, as `results` became json after it), then forward again.
    const names = migrationsList.map((m) => m.name);
    const next = names[names.indexOf(mine) + 1];
    if (next) await migratorOf(db.orm).down({ to: next });
    await run(`delete from mikro_orm_migrations where name = ?`, [mine]);
    await migratorOf(db.orm).up();
    const again = await run('select url, score, result, results from reports where id = ?', [full.id]);
    expect(again[0]).toMatchObject({ url: 'example.com/guide/', score: 42, result: 'bad' });
  }, 180_000);
});
