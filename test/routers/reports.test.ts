import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportSchema } from '../../src/entities/report.entity.ts';
import { ProjectSchema } from '../../src/entities/project.entity.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { request } from '../helpers/http.ts';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.ts';

let services: TestServices;
let server: TestServer;
let site: FixtureSite;
let alice: { key: string; user: { id: number } };
let bob: { key: string; user: { id: number } };

beforeAll(async () => {
  services = await openTestServices({ env: { ANALYZER_ALLOW_PRIVATE: 'true' } });
  server = await startTestServer(services);
  site = await startFixtureSite();
  alice = await createKeyedUser(services, 'alice');
  bob = await createKeyedUser(services, 'bob');
});
afterAll(async () => {
  await server?.close();
  await site?.close();
  await services?.cleanup();
});

const api = (path: string) => `${server.url}${path}`;

async function countRows() {
  const em = services.orm.em.fork();
  return { reports: await em.count(ReportSchema, {}), projects: await em.count(ProjectSchema, {}) };
}

describe('POST /api/v1/reports', () => {
  it('audits the page and stores a report (form body), answering 201', async () => {
    const res = await request(api('/api/v1/reports'), {
      method: 'POST',
      key: alice.key,
      form: { url: `${site.url}/good` },
    });
    expect(res.status).toBe(201);
    const r = res.body.data;
    expect(r).toMatchObject({
      url: `${site.url.replace('http://', '')}/good`,
      project: '127.0.0.1',
      privacy: 1,
      password: false,
    });
    expect(res.body.status).toBe(200);
    expect(['good', 'decent', 'bad']).toContain(r.result);
    expect(r.score).toBeGreaterThanOrEqual(0);
    expect(r.score).toBeLessThanOrEqual(100);
    expect(r.results.seo_friendly_url).toMatchObject({
      value: `${site.url}/good`,
      category: 'seo',
      importance: 'high',
      passed: expect.any(Boolean),
    });
    expect(r.results.title).toMatchObject({ category: 'seo', importance: 'high', passed: expect.any(Boolean) });
    expect(new Date(r.generated_at).getTime()).not.toBeNaN();
  });

  it('grades a well-built page above a poor one', async () => {
    const good = await request(api('/api/v1/reports'), {
      method: 'POST',
      key: alice.key,
      json: { url: `${site.url}/good` },
    });
    const poor = await request(api('/api/v1/reports'), {
      method: 'POST',
      key: alice.key,
      json: { url: `${site.url}/poor` },
    });
    expect(good.body.data.score).toBeGreaterThan(poor.body.data.score);
    expect(poor.body.data.result).toBe('bad');
  });

  it('stores a password hashed and shows only password: true', async () => {
    const res = await request(api('/api/v1/reports'), {
      method: 'POST',
      key: alice.key,
      form: { url: `${site.url}/good`, privacy: '2', password: 'open sesame' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ privacy: 2, password: true });
    expect(res.text).not.toContain('open sesame');
    const row = await services.orm.em.fork().findOneOrFail(ReportSchema, { id: res.body.data.id });
    expect(row.passwordHash).toMatch(/^\$argon2id\$/);
  });

  it.each([
    [{ url: '' }, 'url'],
    [{ url: 'ftp://example.com/' }, 'url'],
    [{ url: 'not a url' }, 'url'],
    [{ url: `http://example.com/${'a'.repeat(2100)}` }, 'url'],
    [{ url: 'http://user:pw@example.com/' }, 'url'],
    [{ url: 'https://example.com/', privacy: '3' }, 'privacy'],
    [{ url: 'https://example.com/', privacy: '2' }, 'password'],
    [{ url: 'https://example.com/', privacy: '1', password: 'x' }, 'password'],
  ])('answers 422 for bad input on %$ (case %#)', async (form, field) => {
    const before = await countRows();
    const res = await request(api('/api/v1/reports'), {
      method: 'POST',
      key: alice.key,
      form: form,
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[field]).toEqual([expect.any(String)]);
    // Every URL refusal speaks the analyzer's vocabulary, whatever rule it broke.
    if (field === 'url') expect(res.body.reason).toBe('invalid_url');
    expect(await countRows()).toEqual(before);
  });

  it.each([
    ['refused', () => 'http://127.0.0.1:1/', /refused/i, 'refused'],
    ['not HTML', () => `${site.url}/json`, /html/i, 'not_html'],
    ['unknown host', () => 'http://no-such-host.invalid/', /does not resolve/i, 'forbidden_address'],
  ])('answers 422 on url saying why when the page is %s', async (_name, url, pattern, reason) => {
    const before = await countRows();
    const res = await request(api('/api/v1/reports'), { method: 'POST', key: alice.key, form: { url: url() } });
    expect(res.status).toBe(422);
    expect(res.body.errors.url[0]).toMatch(pattern);
    expect(res.body.reason).toBe(reason);
    expect(await countRows()).toEqual(before);
  });
});

describe('GET, PUT, DELETE /api/v1/reports/{id}', () => {
  it('reads, updates and deletes only the caller’s own report', async () => {
    const created = await request(api('/api/v1/reports'), {
      method: 'POST',
      key: alice.key,
      form: { url: `${site.url}/good` },
    });
    const id = created.body.data.id;
    const own = await request(api(`/api/v1/reports/${id}`), { key: alice.key });
    expect(own.status).toBe(200);
    expect(own.body.data).toEqual(created.body.data);

    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { privacy: '0' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await request(api(`/api/v1/reports/${id}`), { method, key: bob.key, form: body });
      expect(res.status, method).toBe(404);
      expect(res.body).toEqual({ code: 'ERR_NOT_FOUND', message: expect.any(String), status: 404 });
    }
    expect((await request(api(`/api/v1/reports/${id}`), { key: alice.key })).body.data.privacy).toBe(1);
  });

  it('answers 404 for ids that name no report', async () => {
    for (const id of ['999999', 'abc', '0', '-1', '1.5', '99999999999']) {
      expect((await request(api(`/api/v1/reports/${id}`), { key: alice.key })).status, id).toBe(404);
    }
  });

  it('changes privacy and password; leaving privacy 2 drops the password', async () => {
    const created = await request(api('/api/v1/reports'), {
      method: 'POST',
      key: alice.key,
      form: { url: `${site.url}/good` },
    });
    const id = created.body.data.id;
    const needsPassword = await request(api(`/api/v1/reports/${id}`), {
      method: 'PUT',
      key: alice.key,
      form: { privacy: '2' },
    });
    expect(needsPassword.status).toBe(422);
    expect(needsPassword.body.errors.password).toBeDefined();

    const locked = await request(api(`/api/v1/reports/${id}`), {
      method: 'PUT',
      key: alice.key,
      form: { privacy: '2', password: 'pw1' },
    });
    expect(locked.status).toBe(200);
    expect(locked.body.data).toMatchObject({ privacy: 2, password: true });

    const opened = await request(api(`/api/v1/reports/${id}`), { method: 'PUT', key: alice.key, json: { privacy: 0 } });
    expect(opened.body.data).toMatchObject({ privacy: 0, password: false });
    const row = await services.orm.em.fork().findOneOrFail(ReportSchema, { id });
    expect(row.passwordHash).toBeNull();
    expect(opened.body.data.generated_at).toBe(created.body.data.generated_at);
  });

  it('re-runs the analysis with results=1, moving the report when the final host changes', async () => {
    const path = '/moving';
    site.routes.set(path, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<!doctype html><html lang="en"><title>Moving page</title><h1>Here</h1></html>');
    });
    const created = await request(api('/api/v1/reports'), {
      method: 'POST',
      key: alice.key,
      form: { url: `${site.url}${path}` },
    });
    expect(created.body.data.project).toBe('127.0.0.1');
    // The page now redirects to another host name of the same loopback server.
    site.routes.set(path, (_req, res) => {
      res.writeHead(301, { Location: `http://localhost:${site.port}/good` });
      res.end();
    });
    const id = created.body.data.id;
    const res = await request(api(`/api/v1/reports/${id}`), { method: 'PUT', key: alice.key, form: { results: '1' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id, project: 'localhost', url: `localhost:${site.port}/good` });
    expect(res.body.data.results.seo_friendly_url.value).toBe(`http://localhost:${site.port}/good`);
    expect(res.body.data.score).not.toBe(created.body.data.score);
    expect(new Date(res.body.data.generated_at).getTime()).toBeGreaterThan(
      new Date(created.body.data.generated_at).getTime(),
    );
    const projects = await request(api('/api/v1/projects?search=localhost'), { key: alice.key });
    expect(projects.body.data).toEqual([expect.objectContaining({ project: 'localhost', reports: 1 })]);
  });

  it('deletes a report and answers in the documented shape', async () => {
    const created = await request(api('/api/v1/reports'), {
      method: 'POST',
      key: bob.key,
      form: { url: `${site.url}/good` },
    });
    const id = created.body.data.id;
    const res = await request(api(`/api/v1/reports/${id}`), { method: 'DELETE', key: bob.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, object: 'report', deleted: true, status: 200 });
    expect((await request(api(`/api/v1/reports/${id}`), { key: bob.key })).status).toBe(404);
    // Bob's only report is gone, and so is his project.
    const projects = await request(api('/api/v1/projects'), { key: bob.key });
    expect(projects.body.meta.total).toBe(0);
  });
});

describe('share page /reports/{id}', () => {
  async function make(form: Record<string, string>) {
    const res = await request(api('/api/v1/reports'), {
      method: 'POST',
      key: alice.key,
      form: { url: `${site.url}/good`, ...form },
    });
    // Share pages live under the report's random share id (the numeric id is the API's).
    return (res.body.data.share_url as string).split('/').pop()!;
  }

  it('shows a public report to anyone, readable without scripts', async () => {
    const id = await make({ privacy: '0' });
    const res = await fetch(api(`/reports/${id}`));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).toContain('Score');
    expect(html).toContain('SEO');
    expect(html).toMatch(/Passed|Failed/);
    expect(html).not.toMatch(/<script/i);
  });

  it('is a 404 for private reports, to everyone', async () => {
    const id = await make({ privacy: '1' });
    expect((await fetch(api(`/reports/${id}`))).status).toBe(404);
    expect((await fetch(api(`/reports/${id}`), { headers: { Authorization: `Bearer ${alice.key}` } })).status).toBe(
      404,
    );
    expect((await fetch(api('/reports/nope'))).status).toBe(404);
  });

  it('asks for the password of a password report and checks it', async () => {
    const id = await make({ privacy: '2', password: 'letmein' });
    const form = await fetch(api(`/reports/${id}`));
    expect(form.status).toBe(200);
    expect(await form.text()).toContain('type="password"');
    const post = (password: string) =>
      fetch(api(`/reports/${id}`), {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ password }).toString(),
      });
    const wrong = await post('nope');
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('not right');
    const right = await post('letmein');
    expect(right.status).toBe(200);
    expect(await right.text()).toContain('Score');
  });

  it('rate limits password attempts per address and report', async () => {
    const id = await make({ privacy: '2', password: 'secret' });
    const statuses: number[] = [];
    for (let i = 0; i < services.config.SHARE_PASSWORD_ATTEMPTS + 1; i++) {
      const res = await fetch(api(`/reports/${id}`), {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'password=guess',
      });
      statuses.push(res.status);
    }
    expect(statuses.slice(0, -1).every((s) => s === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });
});
