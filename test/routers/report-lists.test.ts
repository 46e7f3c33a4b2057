import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReport } from '../../src/reports/reports.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { request } from '../helpers/http.ts';
import { syntheticAnalysis } from '../helpers/analysis.ts';

let services: TestServices;
let server: TestServer;
let owner: { key: string; user: { id: number } };
let stranger: { key: string; user: { id: number } };

// 30 reports over three projects with scores spread over all grades; some scores repeat
// so the id tie-break is exercised.
const seeds = Array.from({ length: 30 }, (_, i) => ({
  url: `https://${['alpha.test', 'www.beta.test', 'gamma.test'][i % 3]}/page-${String(i).padStart(2, '0')}${i % 5 === 0 ? '/special_offer' : ''}`,
  score: [95, 85, 70, 55, 30, 10][i % 6],
}));

beforeAll(async () => {
  services = await openTestServices({ store: 'memory', env: { PUBLIC_URL: 'https://audit.example/' } });
  server = await startTestServer(services);
  owner = await createKeyedUser(services, 'owner');
  stranger = await createKeyedUser(services, 'stranger');
  for (const s of seeds) {
    await createReport(services.orm.em.fork(), owner.user.id, { privacy: 1 }, syntheticAnalysis(s.url, s.score));
  }
  await createReport(
    services.orm.em.fork(),
    stranger.user.id,
    { privacy: 0 },
    syntheticAnalysis('https://alpha.test/theirs', 99),
  );
});
afterAll(async () => {
  await server?.close();
  await services?.cleanup();
});

const list = (query: string, key = owner.key) => request(`${server.url}/api/v1/reports${query}`, { key });

describe('GET /api/v1/reports', () => {
  it('lists the caller’s reports newest first, 100 a page, with their results', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(30);
    expect(res.body.data[0].results.seo_friendly_url).toMatchObject({
      passed: true,
      importance: 'high',
      category: 'seo',
    });
    expect(res.body.status).toBe(200);
    const ids = res.body.data.map((r: { id: number }) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(res.body.meta).toMatchObject({ current_page: 1, from: 1, to: 30, last_page: 1, per_page: 100, total: 30 });
    expect(res.body.data.some((r: { url: string }) => r.url.includes('theirs'))).toBe(false);
  });

  it('gives /trpc clients the same items, results parsed', async () => {
    const input = encodeURIComponent(JSON.stringify({ per_page: 10 }));
    const res = await request(`${server.url}/trpc/reports.list?input=${input}`, { key: owner.key });
    expect(res.status).toBe(200);
    const rest = await list('?per_page=10');
    expect(res.body.result.data).toEqual(rest.body);
    expect(res.body.result.data.data[0].results.seo_friendly_url.passed).toBe(true);
  });

  it('builds links from PUBLIC_URL, never from Host or X-Forwarded-Host', async () => {
    const res = await request(`${server.url}/api/v1/reports?per_page=10`, {
      key: owner.key,
      headers: { 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'javascript' },
    });
    const links = [
      res.body.meta.path,
      ...Object.values(res.body.links),
      ...res.body.meta.links.map((l: { url: string | null }) => l.url),
    ];
    for (const link of links.filter(Boolean)) expect(link).toMatch(/^https:\/\/audit\.example\/api\/v1\/reports/);
  });

  it('paginates with right links and meta on first, middle, last and out-of-range pages', async () => {
    const first = await list('?per_page=10&page=1');
    expect(first.body.meta).toMatchObject({ current_page: 1, from: 1, to: 10, last_page: 3, per_page: 10, total: 30 });
    expect(first.body.links.prev).toBeNull();
    expect(first.body.links.next).toMatch(/[?&]page=2(&|$)/);
    expect(first.body.links.first).toMatch(/[?&]page=1(&|$)/);
    expect(first.body.links.last).toMatch(/[?&]page=3(&|$)/);
    expect(first.body.links.next).toContain('per_page=10');
    expect(first.body.meta.path).toBe('https://audit.example/api/v1/reports');
    expect(first.body.links.next).toMatch(/^https:\/\/audit\.example\/api\/v1\/reports\?/);
    expect(first.body.meta.links.map((l: { label: string }) => l.label)).toEqual([
      '&laquo; Previous',
      '1',
      '2',
      '3',
      'Next &raquo;',
    ]);
    expect(first.body.meta.links[1]).toEqual({ url: first.body.links.first, label: '1', active: true });

    const middle = await list('?per_page=10&page=2');
    expect(middle.body.meta).toMatchObject({ current_page: 2, from: 11, to: 20 });
    expect(middle.body.links.prev).toMatch(/[?&]page=1(&|$)/);
    expect(middle.body.links.next).toMatch(/[?&]page=3(&|$)/);

    const last = await list('?per_page=10&page=3');
    expect(last.body.meta).toMatchObject({ current_page: 3, from: 21, to: 30 });
    expect(last.body.links.next).toBeNull();

    const beyond = await list('?per_page=10&page=9');
    expect(beyond.status).toBe(200);
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.meta).toMatchObject({ current_page: 9, from: null, to: null, last_page: 3, total: 30 });
    expect(beyond.body.links.next).toBeNull();
    expect(beyond.body.links.prev).toMatch(/[?&]page=3(&|$)/);

    const all = [...first.body.data, ...middle.body.data, ...last.body.data].map((r: { id: number }) => r.id);
    expect(new Set(all).size).toBe(30);
  });

  it('names the real bounds of `page` (1 to 1,000,000) on every list, past the highest too', async () => {
    for (const path of ['/api/v1/reports', '/api/v1/projects', '/api/v1/audits']) {
      for (const page of ['99999999', '0', '1.5', 'two']) {
        const res = await request(`${server.url}${path}?page=${page}`, { key: owner.key });
        expect(res.status, `${path}?page=${page}`).toBe(422);
        expect(res.body.code).toBe('ERR_VALIDATION');
        expect(res.body.errors.page).toEqual(['The page must be a whole number from 1 to 1,000,000.']);
      }
      expect((await request(`${server.url}${path}?page=1000000`, { key: owner.key })).status).toBe(200);
    }
  });

  it.each([
    ['id', (r: any) => r.id],
    ['generated_at', (r: any) => r.generated_at],
    ['url', (r: any) => r.url],
    ['result', (r: any) => r.score],
  ])('sorts by %s both ways, ties broken by id', async (sortBy, key) => {
    for (const dir of ['asc', 'desc'] as const) {
      const res = await list(`?sort_by=${sortBy}&sort=${dir}`);
      const rows = res.body.data;
      expect(rows).toHaveLength(30);
      for (let i = 1; i < rows.length; i++) {
        const a = key(rows[i - 1]);
        const b = key(rows[i]);
        const cmp = a < b ? -1 : a > b ? 1 : Math.sign(rows[i - 1].id - rows[i].id);
        expect(dir === 'asc' ? cmp : -cmp, `${sortBy} ${dir} at ${i}`).toBeLessThan(0);
      }
    }
  });

  it.each(['id', 'generated_at', 'url', 'result'])(
    'pages of sort_by=%s, back-half pages read from the end, add up to the whole list',
    async (sortBy) => {
      // Searches twice: the first counts, the second knows its total and reads back-half pages
      // from the other end (src/reports/reports.ts). Every page must still be the same slice.
      for (const filter of ['', '&search=page', '&search=page&project=gamma.test', '&result=bad']) {
        for (const dir of ['asc', 'desc']) {
          const query = `?sort_by=${sortBy}&sort=${dir}${filter}`;
          const whole = (await list(`${query}&per_page=100`)).body.data.map((r: { id: number }) => r.id);
          for (let round = 0; round < 2; round++) {
            const paged: number[] = [];
            for (let page = 1; page <= Math.max(1, Math.ceil(whole.length / 10)); page++) {
              const res = await list(`${query}&per_page=10&page=${page}`);
              expect(res.body.meta.total).toBe(whole.length);
              paged.push(...res.body.data.map((r: { id: number }) => r.id));
            }
            expect(paged, `${query} round ${round}`).toEqual(whole);
          }
        }
      }
    },
  );

  it('filters by project (exact) and result, with totals to match', async () => {
    const alpha = await list('?project=alpha.test');
    expect(alpha.body.data).toHaveLength(10);
    expect(alpha.body.data.every((r: any) => r.project === 'alpha.test')).toBe(true);
    expect(alpha.body.meta.total).toBe(10);
    // www. is dropped from the project name.
    expect((await list('?project=beta.test')).body.meta.total).toBe(10);
    expect((await list('?project=alpha')).body.meta.total).toBe(0);

    const good = await list('?result=good');
    expect(good.body.data.every((r: any) => r.result === 'good')).toBe(true);
    expect(good.body.meta.total).toBe(10);
    const both = await list('?result=bad&project=gamma.test');
    expect(both.body.data.every((r: any) => r.result === 'bad' && r.project === 'gamma.test')).toBe(true);
    expect(both.body.meta.total).toBe(both.body.data.length);
  });

  it('searches URLs case-insensitively as a substring, literally', async () => {
    const res = await list('?search=SPECIAL_OFFER&search_by=url');
    expect(res.body.meta.total).toBe(6);
    expect(res.body.data.every((r: any) => r.url.includes('special_offer'))).toBe(true);
    // % and _ are not wildcards.
    expect((await list('?search=%25')).body.meta.total).toBe(0);
    expect((await list('?search=page_0')).body.meta.total).toBe(0);
    expect((await list('?search=page-0&project=alpha.test')).body.meta.total).toBe(4);
  });

  it.each([
    ['per_page', '20', ['10', '25', '50', '100']],
    ['sort_by', 'score', ['id', 'generated_at', 'url', 'result']],
    ['sort', 'up', ['desc', 'asc']],
    ['result', 'great', ['good', 'decent', 'bad']],
    ['search_by', 'project', ['url']],
  ])('answers 422 for %s=%s listing the allowed values', async (name, value, allowed) => {
    const res = await list(`?${name}=${value}`);
    expect(res.status).toBe(422);
    const message = res.body.errors[name][0] as string;
    for (const v of allowed) expect(message).toContain(v);
  });

  it.each(['0', '-1', 'x', '1.5'])('answers 422 for page=%s', async (page) => {
    const res = await list(`?page=${page}`);
    expect(res.status).toBe(422);
    expect(res.body.errors.page).toBeDefined();
  });

  it('lists an item as the report reads alone, timestamps with microseconds included', async () => {
    // Written by SQL with microseconds: a list reads them as whole milliseconds, truncated,
    // as the ORM's single read does.
    await services.orm.em
      .fork()
      .getConnection()
      .execute(
        `update reports set generated_at = '2024-02-29 23:59:59.999999+00', created_at = '2024-01-01 00:00:30.123987+00',
         updated_at = '1969-12-31 23:59:59.9995+00' where user_id = ?`,
        [stranger.user.id],
      );
    const [item] = (await list('', stranger.key)).body.data;
    const single = (await request(`${server.url}/api/v1/reports/${item.id}`, { key: stranger.key })).body.data;
    expect(item).toEqual(single);
    expect(item).toMatchObject({
      generated_at: '2024-02-29T23:59:59.999Z',
      created_at: '2024-01-01T00:00:30.123Z',
      updated_at: '1969-12-31T23:59:59.999Z',
    });
  });

  it('shows another user only their own reports', async () => {
    const res = await list('', stranger.key);
    expect(res.body.meta.total).toBe(1);
    expect(res.body.data[0].url).toBe('alpha.test/theirs');
    expect(res.body.data[0].results.seo_friendly_url.value).toBe('https://alpha.test/theirs');
  });
});

describe('projects', () => {
  const projects = (query: string, key = owner.key) => request(`${server.url}/api/v1/projects${query}`, { key });

  it('lists projects with count, mean score, grade and earliest report', async () => {
    const res = await projects('?sort_by=project&sort=asc');
    expect(res.status).toBe(200);
    expect(res.body.data.map((p: any) => p.project)).toEqual(['alpha.test', 'beta.test', 'gamma.test']);
    const alpha = res.body.data[0];
    const alphaScores = seeds.filter((s) => s.url.includes('alpha.test')).map((s) => s.score);
    const mean = Math.round(alphaScores.reduce((a, b) => a + b, 0) / alphaScores.length);
    expect(alpha).toMatchObject({
      reports: 10,
      score: mean,
      result: mean >= 80 ? 'good' : mean >= 50 ? 'decent' : 'bad',
    });
    expect(new Date(alpha.created_at).getTime()).not.toBeNaN();
    expect(res.body.meta).toMatchObject({ total: 3, per_page: 100, current_page: 1 });
  });

  it('sorts by created_at by default (newest first) and searches by name', async () => {
    const res = await projects('');
    const created = res.body.data.map((p: any) => p.created_at);
    expect(created).toEqual([...created].sort().reverse());
    const found = await projects('?search=AMM&search_by=project');
    expect(found.body.data.map((p: any) => p.project)).toEqual(['gamma.test']);
  });

  it.each([
    ['per_page', '20'],
    ['sort_by', 'score'],
    ['sort', 'sideways'],
    ['search_by', 'url'],
  ])('answers 422 for %s=%s', async (name, value) => {
    const res = await projects(`?${name}=${value}`);
    expect(res.status).toBe(422);
    expect(res.body.errors[name]).toBeDefined();
  });

  it('keeps projects per user', async () => {
    const theirs = await projects('', stranger.key);
    expect(theirs.body.data).toEqual([expect.objectContaining({ project: 'alpha.test', reports: 1, score: 99 })]);
  });

  it('deletes a project with all its reports, for its owner only', async () => {
    const foreign = await request(`${server.url}/api/v1/projects/gamma.test`, { method: 'DELETE', key: stranger.key });
    expect(foreign.status).toBe(404);
    expect((await list('?project=gamma.test')).body.meta.total).toBe(10);

    const res = await request(`${server.url}/api/v1/projects/gamma.test`, { method: 'DELETE', key: owner.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 'gamma.test', object: 'project', deleted: true, status: 200 });
    expect((await list('?project=gamma.test')).body.meta.total).toBe(0);
    expect((await list('')).body.meta.total).toBe(20);
    expect((await projects('')).body.meta.total).toBe(2);
    expect(
      (await request(`${server.url}/api/v1/projects/gamma.test`, { method: 'DELETE', key: owner.key })).status,
    ).toBe(404);
    // The other user's project of the same name is untouched.
    expect((await projects('', stranger.key)).body.meta.total).toBe(1);
  });
});
