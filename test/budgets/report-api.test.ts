/**
 * Budgets, runs and category summaries on the reports API, raw (no browser): the summaries
 * beside phpRank's keys (in lists too), `runs` bounded, and a lighthouserc asserted on a
 * report with the rendered checks it lacks said to need rendering. Real HTTP, real database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../helpers/http.ts';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';

let services: TestServices;
let server: TestServer;
let site: FixtureSite;
let key: string;
let other: string;

beforeAll(async () => {
  services = await openTestServices({ env: { ANALYZER_ALLOW_PRIVATE: 'true', ANALYZER_MAX_RUNS: '3' } });
  server = await startTestServer(services);
  site = await startFixtureSite();
  ({ key } = await createKeyedUser(services, 'budgeter'));
  ({ key: other } = await createKeyedUser(services, 'someone-else'));
});
afterAll(async () => {
  await server?.close();
  await site?.close();
  await services?.cleanup();
});

const api = (path: string) => `${server.url}${path}`;

describe('reports say their categories', () => {
  it('carries category summaries beside phpRank’s keys, in single reads and lists', async () => {
    const created = await request(api('/api/v1/reports'), {
      method: 'POST',
      key,
      form: { url: `${site.url}/good`, runs: '2' },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.categories).toEqual({
      performance: { status: 'needs_rendering' },
      accessibility: { status: 'needs_rendering' },
    });
    expect(created.body.data.lab).toBeNull();
    for (const k of ['id', 'url', 'project', 'result', 'score', 'results', 'privacy', 'password', 'generated_at']) {
      expect(created.body.data).toHaveProperty(k);
    }
    const list = await request(api('/api/v1/reports'), { key });
    expect(list.body.data[0].categories).toEqual(created.body.data.categories);
  });

  it('bounds runs', async () => {
    const res = await request(api('/api/v1/reports'), {
      method: 'POST',
      key,
      form: { url: `${site.url}/good`, runs: '4' },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveProperty('runs');
    const zero = await request(api('/api/v1/reports'), {
      method: 'POST',
      key,
      form: { url: `${site.url}/good`, runs: '0' },
    });
    expect(zero.status).toBe(422);
    const created = await request(api('/api/v1/reports'), { method: 'POST', key, form: { url: `${site.url}/good` } });
    const again = await request(api(`/api/v1/reports/${created.body.data.id}`), {
      method: 'PUT',
      key,
      form: { results: '1', runs: '3' },
    });
    expect(again.status).toBe(200);
    const tooMany = await request(api(`/api/v1/reports/${created.body.data.id}`), {
      method: 'PUT',
      key,
      form: { results: '1', runs: '9' },
    });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors).toHaveProperty('runs');
  });
});

describe('POST /api/v1/reports/{id}/assert', () => {
  it('asserts a lighthouserc, never passing what it did not measure', async () => {
    const created = await request(api('/api/v1/reports'), { method: 'POST', key, form: { url: `${site.url}/poor` } });
    const id = created.body.data.id;
    const budget = {
      ci: {
        assert: {
          assertions: {
            'document-title': 'error',
            'meta-description': ['warn', { minScore: 1 }],
            'largest-contentful-paint': ['error', { maxNumericValue: 2500 }],
            'speed-index': 'warn',
            doctype: 'error',
          },
        },
      },
    };
    const res = await request(api(`/api/v1/reports/${id}/assert`), {
      method: 'POST',
      key,
      json: { budget, baseline: 'last' },
    });
    expect(res.status).toBe(200);
    const by = Object.fromEntries(res.body.data.assertions.map((a: any) => [a.key, a]));
    expect(by['meta-description']).toMatchObject({ status: 'failed', check: 'meta_description', actual: 0 });
    expect(by['doctype']).toMatchObject({ status: 'failed', check: 'doctype' });
    expect(by['largest-contentful-paint']).toMatchObject({
      status: 'not_measured',
      message: expect.stringContaining('needs rendering'),
    });
    expect(by['speed-index']).toMatchObject({ status: 'not_measured', check: null });
    expect(res.body.data.regression).toBeNull(); // no earlier report of /poor with lab runs

    const bad = await request(api(`/api/v1/reports/${id}/assert`), {
      method: 'POST',
      key,
      json: { budget: { assertions: { 'document-title': 'fatal' } } },
    });
    expect(bad.status).toBe(422);
    const theirs = await request(api(`/api/v1/reports/${id}/assert`), { method: 'POST', key: other, json: {} });
    expect(theirs.status).toBe(404);
  });
});
