/**
 * A page check added as one file reaches everything that reads the registry: the catalogue,
 * `GET /api/v1/checks` through the real Koa app, a report's results, the share page, and the
 * report as the console reads it (tRPC `reports.get`; the console shows the results it gets
 * there). The service's code is copied to a temporary folder, one check module is written into
 * the copy's src/analyzer/checks/page/ with its line in the copy's registry, and the copy's app
 * runs here, untouched otherwise.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { load } from 'cheerio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as Catalogue from '../../../src/analyzer/checks/catalogue/index.ts';
import type * as Services from '../../helpers/services.ts';
import { startFixtureSite, type FixtureSite } from '../../helpers/fixture-site.ts';
import { request } from '../../helpers/http.ts';

const root = path.resolve(import.meta.dirname, '../../..');
/** Where share links point; the console's session is opened from this origin. */
const PUBLIC_URL = 'https://audit.example';
const work = mkdtempSync(path.join(os.tmpdir(), 'one-file-check-'));

/** The whole new check: what a contributor writes, and nothing else. */
const paragraphs = `
import * as formats from '../catalogue/formats.ts';
import type { PageCheck } from '../types.ts';

export default {
  id: 'paragraphs',
  category: 'miscellaneous',
  importance: 'low',
  source: 'page',
  order: 4130,
  rendered: true,
  texts: {
    en: {
      title: 'Paragraphs',
      description: 'The text of the page is set in <p> elements. Paragraphs make long text easier to read.',
      fix: 'Put each block of running text in its own <p> element.',
      counted: { one: 'paragraph', other: 'paragraphs' },
    },
  },
  value: formats.count,
  run(page) {
    const count = page.$('p').length;
    return { passed: count > 0, value: count, details: count > 0 ? [] : ['No <p> element.'] };
  },
} satisfies PageCheck;
`;

/** Imports a module of the copy. */
const fromCopy = <T>(file: string): Promise<T> => import(pathToFileURL(path.join(work, file)).href) as Promise<T>;

let services: Services.TestServices;
let server: Services.TestServer;
let site: FixtureSite;
let key: string;
let catalogue: typeof Catalogue;

beforeAll(async () => {
  for (const dir of [
    'src',
    'routers',
    'facade',
    'views',
    'shared',
    'widget',
    'pow',
    'console',
    'migrations',
    'test/helpers',
  ]) {
    cpSync(path.join(root, dir), path.join(work, dir), { recursive: true });
  }
  for (const file of ['package.json', 'tsconfig.json']) cpSync(path.join(root, file), path.join(work, file));
  symlinkSync(path.join(root, 'node_modules'), path.join(work, 'node_modules'));
  mkdirSync(path.join(work, 'src/analyzer/checks/page'), { recursive: true });
  writeFileSync(path.join(work, 'src/analyzer/checks/page/paragraphs.ts'), paragraphs);
  // ...and its line in the registry's list.
  const registry = path.join(work, 'src/analyzer/checks/registry.ts');
  writeFileSync(
    registry,
    readFileSync(registry, 'utf8')
      .replace('import { locales }', "import paragraphs from './page/paragraphs.ts';\nimport { locales }")
      .replace('validatePageChecks([\n', 'validatePageChecks([\n  paragraphs,\n'),
  );

  catalogue = await fromCopy<typeof Catalogue>('src/analyzer/checks/catalogue/index.ts');
  const helpers = await fromCopy<typeof Services>('test/helpers/services.ts');
  services = await helpers.openTestServices({
    env: { ANALYZER_ALLOW_PRIVATE: 'true', PUBLIC_URL },
  });
  server = await helpers.startTestServer(services);
  site = await startFixtureSite();
  ({ key } = await helpers.createKeyedUser(services, 'one-file'));
}, 120_000);
afterAll(async () => {
  await server?.close();
  await site?.close();
  await services?.cleanup();
  rmSync(work, { recursive: true, force: true });
});

describe('a page check added as one file and one line', () => {
  it('is in the catalogue, after the check its order follows', () => {
    const ids = catalogue.checkCatalogue().map((e) => e.id);
    expect(ids.indexOf('paragraphs')).toBe(ids.indexOf('doctype') + 1);
    expect(catalogue.catalogueEntry('paragraphs')).toMatchObject({
      category: 'miscellaneous',
      importance: 'low',
      source: 'page',
      title: 'Paragraphs',
      unit: 'count',
      format: { type: 'number', unit: 'count' },
      counted: { one: 'paragraph', other: 'paragraphs' },
    });
  });

  it('is listed by GET /api/v1/checks', async () => {
    const res = await request(`${server.url}/api/v1/checks`, { key });
    expect(res.status).toBe(200);
    const listed = (res.body.data as Array<{ id: string }>).find((c) => c.id === 'paragraphs');
    expect(listed).toEqual({
      id: 'paragraphs',
      category: 'miscellaneous',
      importance: 'low',
      weight: 0,
      scored_in: 'report',
      source: 'page',
      title: 'Paragraphs',
      description: 'The text of the page is set in <p> elements. Paragraphs make long text easier to read.',
      fix: 'Put each block of running text in its own <p> element.',
      unit: 'count',
      format: { type: 'number', unit: 'count' },
      counted: { one: 'paragraph', other: 'paragraphs' },
    });
  });

  it('is measured in reports, shown on the share page and in what the console reads', async () => {
    const created = await request(`${server.url}/api/v1/reports`, {
      method: 'POST',
      key,
      form: { url: `${site.url}/good`, privacy: '0' },
    });
    expect(created.status).toBe(201);
    const report = created.body.data as { id: number; share_url: string; results: Record<string, unknown> };
    const measured = { passed: true, importance: 'low', category: 'miscellaneous', value: 1, details: [] };
    expect(report.results.paragraphs).toMatchObject(measured);
    const ids = Object.keys(report.results);
    expect(ids.indexOf('paragraphs')).toBe(ids.indexOf('doctype') + 1);

    // The share page: the check in words, its value in its unit.
    const html = await (await fetch(`${server.url}${new URL(report.share_url).pathname}`)).text();
    const article = load(html)('article#check-paragraphs');
    expect(article.find('h3').text()).toBe('Paragraphs');
    expect(article.text()).toContain('1 paragraph');
    expect(article.find('.about').text()).toContain('Paragraphs make long text easier to read.');

    // The console: signed in, it reads the report with tRPC reports.get and shows its results.
    const session = await fetch(`${server.url}/console/api/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: PUBLIC_URL },
      body: JSON.stringify({ api_key: key }),
    });
    expect(session.status).toBe(201);
    const cookie = session.headers.get('set-cookie')!.split(';')[0];
    const input = encodeURIComponent(JSON.stringify({ id: String(report.id) }));
    const got = await fetch(`${server.url}/trpc/reports.get?input=${input}`, { headers: { Cookie: cookie } });
    expect(got.status).toBe(200);
    const read = (await got.json()) as { result: { data: { data: { results: Record<string, unknown> } } } };
    expect(read.result.data.data.results.paragraphs).toMatchObject(measured);
  });
});
