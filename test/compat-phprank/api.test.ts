/**
 * A phpRank client against our API. Every expectation here comes from phpRank 1.5.0's own
 * resources and developer docs (read, not copied): ReportResource and ProjectResource (fields,
 * `status: 200` beside `data`), the controllers (list parameters, the delete body), the Report
 * model (check ids by category, result bands, `url` without scheme or www., the full address
 * in results.seo_friendly_url.value), ReportTrait (`{passed, importance, value, errors}` per
 * check; importances; weights high 10, medium 5, low 0), routes/api.php (a resource route:
 * update by PUT and PATCH) and Laravel's paginator (`links`, `meta` with its `links` array).
 * Where the spec fixes something else (per_page default 100, `result` as good/decent/bad, 404
 * for another tenant's report) the spec wins, and the README lists the difference.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.ts';
import { syntheticAnalysis } from '../helpers/analysis.ts';

/** phpRank 1.5.0's check ids by category (app/Models/Report.php). */
const phpRankIds = {
  seo: [
    'title',
    'meta_description',
    'headings',
    'content_keywords',
    'image_keywords',
    'seo_friendly_url',
    '404_page',
    'robots',
    'noindex',
    'in_page_links',
    'language',
    'favicon',
  ],
  performance: [
    'text_compression',
    'load_time',
    'page_size',
    'http_requests',
    'image_format',
    'defer_javascript',
    'dom_size',
  ],
  security: ['https_encryption', 'mixed_content', 'server_signature', 'unsafe_cross_origin_links', 'plaintext_email'],
  miscellaneous: [
    'structured_data',
    'meta_viewport',
    'charset',
    'sitemap',
    'social',
    'content_length',
    'text_html_ratio',
    'inline_css',
    'deprecated_html_tags',
  ],
};
/** Importances phpRank's ReportTrait gives its checks (1.1.0 for gsb). */
const phpRankImportance: Record<string, 'high' | 'medium' | 'low'> = {
  title: 'high',
  meta_description: 'high',
  headings: 'high',
  content_keywords: 'high',
  image_keywords: 'high',
  seo_friendly_url: 'high',
  '404_page': 'high',
  robots: 'high',
  noindex: 'high',
  in_page_links: 'medium',
  language: 'medium',
  favicon: 'medium',
  text_compression: 'high',
  load_time: 'medium',
  page_size: 'medium',
  http_requests: 'medium',
  image_format: 'medium',
  defer_javascript: 'low',
  dom_size: 'low',
  https_encryption: 'high',
  mixed_content: 'medium',
  server_signature: 'medium',
  unsafe_cross_origin_links: 'medium',
  plaintext_email: 'low',
  structured_data: 'medium',
  meta_viewport: 'medium',
  charset: 'medium',
  sitemap: 'low',
  social: 'low',
  content_length: 'low',
  text_html_ratio: 'low',
  inline_css: 'low',
  deprecated_html_tags: 'low',
  gsb: 'high',
};
const weights = { high: 10, medium: 5, low: 0 };
const isoDate = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** ReportResource's fields, with their types (plus our `score`, `share_url`, `categories` and `lab`). */
function expectReportResource(r: any) {
  expect(Object.keys(r).sort()).toEqual(
    [
      'id',
      'url',
      'project',
      'result',
      'score',
      'results',
      'privacy',
      'password',
      'share_url',
      // Ours beside phpRank's: the category summaries and the lab runs' medians (docs/reports.md).
      'categories',
      'lab',
      'generated_at',
      'created_at',
      'updated_at',
    ].sort(),
  );
  expect(r.share_url).toMatch(/\/reports\/[A-Za-z0-9_-]{22}$/);
  expect(r.id).toEqual(expect.any(Number));
  expect(r.url).toEqual(expect.any(String));
  expect(r.url).not.toMatch(/^https?:\/\//);
  expect(r.url).not.toMatch(/^www\./);
  expect(r.project).toEqual(expect.any(String));
  expect(['good', 'decent', 'bad']).toContain(r.result);
  expect(Number.isInteger(r.score)).toBe(true);
  expect([0, 1, 2]).toContain(r.privacy);
  expect(typeof r.password).toBe('boolean');
  for (const k of ['generated_at', 'created_at', 'updated_at']) expect(r[k]).toMatch(isoDate);
  expect(r.results).toEqual(expect.any(Object));
  expect(Array.isArray(r.results)).toBe(false);
  for (const [id, entry] of Object.entries<any>(r.results)) {
    expect(typeof entry.passed, id).toBe('boolean');
    expect(['high', 'medium', 'low'], id).toContain(entry.importance);
    expect(entry, id).toHaveProperty('value');
    if (entry.passed) expect(entry, id).not.toHaveProperty('errors');
    else expect(Object.keys(entry.errors ?? {}), id).toHaveLength(1);
    expect(['seo', 'performance', 'security', 'miscellaneous'], id).toContain(entry.category);
    expect(Array.isArray(entry.details), id).toBe(true);
  }
}

/** Laravel's paginated resource collection, with phpRank's `status` beside it. */
function expectLaravelPage(body: any) {
  expect(Object.keys(body).sort()).toEqual(['data', 'links', 'meta', 'status']);
  expect(body.status).toBe(200);
  expect(Object.keys(body.links).sort()).toEqual(['first', 'last', 'next', 'prev']);
  expect(Object.keys(body.meta)).toEqual([
    'current_page',
    'from',
    'last_page',
    'links',
    'path',
    'per_page',
    'to',
    'total',
  ]);
  const labels = body.meta.links.map((l: any) => l.label);
  expect(labels[0]).toBe('&laquo; Previous');
  expect(labels.at(-1)).toBe('Next &raquo;');
  for (const l of body.meta.links) {
    expect(Object.keys(l).sort()).toEqual(['active', 'label', 'url']);
    expect(typeof l.active).toBe('boolean');
  }
  expect(body.meta.links.filter((l: any) => l.active)).toEqual([
    expect.objectContaining({ label: String(body.meta.current_page) }),
  ]);
}

interface SafeBrowsingFake {
  url: string;
  flagged: Set<string>;
  requests: any[];
  close(): Promise<void>;
}

/** A local stand-in for Google's Safe Browsing Lookup API v4 (threatMatches:find). */
async function startSafeBrowsingFake(): Promise<SafeBrowsingFake> {
  const flagged = new Set<string>();
  const requests: any[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const parsed = JSON.parse(body || '{}');
      requests.push({ url: req.url, body: parsed });
      if (req.method !== 'POST' || !req.url?.startsWith('/v4/threatMatches:find?key=test-gsb-key')) {
        res.writeHead(403).end('{}');
        return;
      }
      const entries: Array<{ url: string }> = parsed.threatInfo?.threatEntries ?? [];
      const matches = entries
        .filter((e) => flagged.has(e.url))
        .map((e) => ({ threatType: 'SOCIAL_ENGINEERING', platformType: 'ANY_PLATFORM', threat: e }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(matches.length ? { matches } : {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    flagged,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let services: TestServices;
let server: TestServer;
let site: FixtureSite;
let gsb: SafeBrowsingFake;
let ada: { key: string; user: { id: number } };
let eve: { key: string; user: { id: number } };

beforeAll(async () => {
  gsb = await startSafeBrowsingFake();
  services = await openTestServices({
    env: {
      ANALYZER_ALLOW_PRIVATE: 'true',
      GSB_API_KEY: 'test-gsb-key',
      GSB_BASE_URL: gsb.url,
      PUBLIC_URL: 'https://rank.example',
    },
  });
  server = await startTestServer(services);
  site = await startFixtureSite();
  ada = await createKeyedUser(services, 'ada');
  eve = await createKeyedUser(services, 'eve');
});
afterAll(async () => {
  await server?.close();
  await site?.close();
  await gsb?.close();
  await services?.cleanup();
});

const api = (path: string) => `${server.url}${path}`;
const host = () => site.url.replace(/^http:\/\//, '');

describe('store (POST /api/v1/reports)', () => {
  it('answers ReportResource with status 200, results keyed by phpRank ids, url as phpRank stores it', async () => {
    const res = await request(api('/api/v1/reports'), {
      method: 'POST',
      key: ada.key,
      form: { url: `${site.url}/good` },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'status']);
    expect(res.body.status).toBe(200);
    const r = res.body.data;
    expectReportResource(r);
    expect(r.url).toBe(`${host()}/good`);
    expect(r.results.seo_friendly_url.value).toBe(`${site.url}/good`);
    expect(r.privacy).toBe(1);
    for (const [category, ids] of Object.entries(phpRankIds)) {
      for (const id of ids) {
        expect(r.results[id], id).toBeDefined();
        expect(r.results[id].category, id).toBe(category);
        expect(r.results[id].importance, id).toBe(phpRankImportance[id]);
      }
    }
    // gsb (phpRank 1.1.0's security check) is there because an operator key is configured.
    expect(r.results.gsb).toMatchObject({ passed: true, importance: 'high', category: 'security', value: [] });
    expect(gsb.requests.at(-1).body.threatInfo.threatEntries).toEqual([{ url: `${site.url}/good` }]);
    // Every results.title.passed read works.
    expect(typeof r.results.title.passed).toBe('boolean');
  });

  it('scores with phpRank weights (high 10, medium 5, low 0) and grades with its bands', async () => {
    for (const path of ['/good', '/poor']) {
      const r = (
        await request(api('/api/v1/reports'), { method: 'POST', key: ada.key, form: { url: `${site.url}${path}` } })
      ).body.data;
      let total = 0;
      let passed = 0;
      for (const e of Object.values<any>(r.results)) {
        total += weights[e.importance as keyof typeof weights];
        if (e.passed) passed += weights[e.importance as keyof typeof weights];
      }
      expect(r.score).toBe(Math.round((100 * passed) / total));
      expect(r.result).toBe(r.score >= 80 ? 'good' : r.score >= 49 ? 'decent' : 'bad');
    }
  });

  it('fails gsb for a URL Safe Browsing lists, with an error under `failed`', async () => {
    gsb.flagged.add(`${site.url}/poor`);
    const r = (
      await request(api('/api/v1/reports'), { method: 'POST', key: ada.key, form: { url: `${site.url}/poor` } })
    ).body.data;
    expect(r.results.gsb).toMatchObject({
      passed: false,
      value: ['SOCIAL_ENGINEERING'],
      errors: { failed: null },
      details: [expect.stringMatching(/SOCIAL_ENGINEERING/)],
    });
  });

  it('keeps the errors of the habits issue, with the analyzer reason as a code', async () => {
    const bad = await request(api('/api/v1/reports'), {
      method: 'POST',
      key: ada.key,
      form: { url: 'ftp://example.com/' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ status: 422, reason: 'invalid_url', errors: { url: [expect.any(String)] } });
    const refused = await request(api('/api/v1/reports'), {
      method: 'POST',
      key: ada.key,
      form: { url: 'http://127.0.0.1:1/' },
    });
    expect(refused.body).toMatchObject({ status: 422, reason: 'refused' });
  });
});

describe('show, update (PUT and PATCH), destroy', () => {
  it('shows a report as ReportResource with status 200; another user gets 404', async () => {
    const created = (
      await request(api('/api/v1/reports'), { method: 'POST', key: ada.key, form: { url: `${site.url}/good` } })
    ).body.data;
    const res = await request(api(`/api/v1/reports/${created.id}`), { key: ada.key });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(200);
    expectReportResource(res.body.data);
    expect(res.body.data).toEqual(created);
    const theirs = await request(api(`/api/v1/reports/${created.id}`), { key: eve.key });
    expect(theirs.status).toBe(404);
    expect(theirs.body.status).toBe(404);
  });

  it.each(['PUT', 'PATCH'])('updates privacy, password and results with %s (form body)', async (method) => {
    const created = (
      await request(api('/api/v1/reports'), { method: 'POST', key: ada.key, form: { url: `${site.url}/good` } })
    ).body.data;
    const pw = await request(api(`/api/v1/reports/${created.id}`), {
      method,
      key: ada.key,
      form: { privacy: '2', password: 'hunter22' },
    });
    expect(pw.status).toBe(200);
    expect(pw.body.status).toBe(200);
    expectReportResource(pw.body.data);
    expect(pw.body.data).toMatchObject({ id: created.id, privacy: 2, password: true, url: created.url });
    const again = await request(api(`/api/v1/reports/${created.id}`), {
      method,
      key: ada.key,
      form: { privacy: '0', results: '1' },
    });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ privacy: 0, password: false, url: created.url });
    expect(again.body.data.results.seo_friendly_url.value).toBe(`${site.url}/good`);
    expect(new Date(again.body.data.generated_at).getTime()).toBeGreaterThanOrEqual(
      new Date(created.generated_at).getTime(),
    );
    // Another user's report is a 404 (phpRank answers 403 here; ids must not leak).
    const foreign = await request(api(`/api/v1/reports/${created.id}`), {
      method,
      key: eve.key,
      form: { privacy: '0' },
    });
    expect(foreign.status).toBe(404);
  });

  it('destroys a report with phpRank’s body: {id, object, deleted, status}', async () => {
    const created = (
      await request(api('/api/v1/reports'), { method: 'POST', key: eve.key, form: { url: `${site.url}/good` } })
    ).body.data;
    const res = await request(api(`/api/v1/reports/${created.id}`), { method: 'DELETE', key: eve.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: created.id, object: 'report', deleted: true, status: 200 });
    const gone = await request(api(`/api/v1/reports/${created.id}`), { method: 'DELETE', key: eve.key });
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ message: expect.any(String), status: 404 });
  });
});

describe('index (GET /api/v1/reports)', () => {
  let lister: { key: string; user: { id: number } };
  beforeAll(async () => {
    lister = await createKeyedUser(services, 'lister');
    // Scores on each side of phpRank's bands: bad < 49 <= decent <= 79 < good.
    const scores = [48, 49, 79, 80, 100, 0];
    for (const [i, score] of scores.entries()) {
      await createReport(
        services.orm.em.fork(),
        lister.user.id,
        { privacy: 1 },
        syntheticAnalysis(`https://www.band-${i}.example/`, score),
      );
    }
  });

  it('is a Laravel page with status 200, items as ReportResource with results', async () => {
    const res = await request(api('/api/v1/reports?per_page=10'), { key: lister.key });
    expect(res.status).toBe(200);
    expectLaravelPage(res.body);
    expect(res.body.meta).toMatchObject({
      current_page: 1,
      from: 1,
      to: 6,
      last_page: 1,
      per_page: 10,
      total: 6,
      path: 'https://rank.example/api/v1/reports',
    });
    for (const r of res.body.data) expectReportResource(r);
    expect(res.body.data.map((r: any) => r.url)).toEqual([
      'band-5.example',
      'band-4.example',
      'band-3.example',
      'band-2.example',
      'band-1.example',
      'band-0.example',
    ]);
    expect(res.body.data[0].results.seo_friendly_url.value).toBe('https://www.band-5.example/');
  });

  it('defaults per_page to 100 (the spec’s default, where phpRank uses its setting)', async () => {
    expect((await request(api('/api/v1/reports'), { key: lister.key })).body.meta.per_page).toBe(100);
  });

  it.each([
    ['good', [80, 100]],
    ['decent', [49, 79]],
    ['bad', [0, 48]],
  ])('filters result=%s with phpRank’s bands', async (grade, scores) => {
    const res = await request(api(`/api/v1/reports?result=${grade}`), { key: lister.key });
    expect(res.body.data.map((r: any) => r.score).sort((a: number, b: number) => a - b)).toEqual(scores);
    for (const r of res.body.data) expect(r.result).toBe(grade);
  });

  it('searches url with a full address pasted in, as phpRank cleans the term', async () => {
    const res = await request(api(`/api/v1/reports?search=${encodeURIComponent('https://www.band-3')}`), {
      key: lister.key,
    });
    expect(res.body.data.map((r: any) => r.url)).toEqual(['band-3.example']);
    const sorted = await request(api('/api/v1/reports?sort_by=url&sort=asc'), { key: lister.key });
    expect(sorted.body.data.map((r: any) => r.url)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `band-${i}.example`));
  });

  it('lists pages in meta.links as Laravel’s window does', async () => {
    const many = await createKeyedUser(services, 'many');
    for (let i = 0; i < 150; i++) {
      await createReport(
        services.orm.em.fork(),
        many.user.id,
        { privacy: 1 },
        syntheticAnalysis(`https://many.example/p${i}`, 50),
      );
    }
    const page = async (n: number) =>
      (await request(api(`/api/v1/reports?per_page=10&page=${n}`), { key: many.key })).body;
    const labels = (body: any) => body.meta.links.map((l: any) => l.label).slice(1, -1);
    const first = await page(1);
    expectLaravelPage(first);
    expect(labels(first)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '...', '14', '15']);
    expect(first.meta.links[0].url).toBeNull();
    expect(labels(await page(8))).toEqual(['1', '2', '...', '5', '6', '7', '8', '9', '10', '11', '...', '14', '15']);
    const last = await page(15);
    expect(labels(last)).toEqual(['1', '2', '...', '6', '7', '8', '9', '10', '11', '12', '13', '14', '15']);
    expect(last.meta.links.at(-1).url).toBeNull();
    expect(last.meta.links[0].url).toBe(
      'https://rank.example/api/v1/reports?search_by=url&sort_by=id&sort=desc&per_page=10&page=14',
    );
  });
});

describe('projects', () => {
  it('lists projects as a Laravel page with status 200 and ProjectResource fields', async () => {
    const res = await request(api('/api/v1/projects?per_page=10'), { key: ada.key });
    expect(res.status).toBe(200);
    expectLaravelPage(res.body);
    expect(res.body.meta.path).toBe('https://rank.example/api/v1/projects');
    const p = res.body.data[0];
    // phpRank's fields (project, reports, result, created_at) plus our mean `score`.
    expect(Object.keys(p).sort()).toEqual(['created_at', 'project', 'reports', 'result', 'score']);
    expect(p).toMatchObject({
      project: '127.0.0.1',
      reports: expect.any(Number),
      result: expect.stringMatching(/^(good|decent|bad)$/),
    });
    expect(p.created_at).toMatch(isoDate);
  });

  it('deletes a project with {id, object, deleted, status}', async () => {
    const res = await request(api('/api/v1/projects/127.0.0.1'), { method: 'DELETE', key: eve.key });
    expect(res.status).toBe(404); // eve's only report was deleted above
    await request(api('/api/v1/reports'), { method: 'POST', key: eve.key, form: { url: `${site.url}/good` } });
    const ok = await request(api('/api/v1/projects/127.0.0.1'), { method: 'DELETE', key: eve.key });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ id: '127.0.0.1', object: 'project', deleted: true, status: 200 });
  });
});

describe('the API document', () => {
  it('documents PATCH beside PUT for the update', async () => {
    const doc = (await request(api('/api/openapi.json'))).body;
    const item = doc.paths['/api/v1/reports/{id}'];
    expect(item.put).toBeDefined();
    expect(item.patch).toBeDefined();
    expect(item.patch.requestBody).toEqual(item.put.requestBody);
    expect(item.patch.operationId).not.toBe(item.put.operationId);
  });
});
