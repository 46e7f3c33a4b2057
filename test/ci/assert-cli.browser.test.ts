/**
 * `auditcaptcha assert` as a user runs it (`npm run -s auditcaptcha -- assert ...`, a child
 * process) against the real service on loopback, rendering in Chromium: a lighthouserc.json
 * written as Lighthouse CI's documentation writes one, exit codes 0, 1 and 2, the JUnit file
 * held to the JUnit schema's structure, the Markdown summary (failures first, with their fixes),
 * progress on standard error only, a baseline, and an audit's pages with its own budget.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { load } from 'cheerio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath } from '../analyzer/render/fixtures.ts';
import { startSpeedSite, type SpeedSite } from '../budgets/speed-site.ts';
import { request } from '../helpers/http.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';

let services: TestServices;
let server: TestServer;
let site: SpeedSite;
let key: string;
let dir: string;

beforeAll(async () => {
  services = await openTestServices({
    queue: true,
    env: {
      API_RATE_LIMIT: '100000',
      ANALYZER_ALLOW_PRIVATE: 'true',
      ANALYZER_RENDER: 'auto',
      ANALYZER_CHROMIUM_PATH: chromiumPath,
      ANALYZER_RENDER_CONTEXTS: '1',
      AUDIT_HOST_DELAY_MS: '0',
      QUEUE_MONITOR_SECONDS: '2',
    },
  });
  server = await startTestServer(services);
  site = await startSpeedSite();
  ({ key } = await createKeyedUser(services, 'ci'));
  dir = await mkdtemp(path.join(tmpdir(), 'auditcaptcha-ci-'));
});
afterAll(async () => {
  await server?.close();
  await site?.close();
  await services?.cleanup();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const root = path.resolve(import.meta.dirname, '../..');

/** The command as a user types it in a checkout; resolves to its exit code and output. */
function cli(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      'npm',
      ['run', '-s', 'auditcaptcha', '--', 'assert', ...args],
      { cwd: root, env: { ...process.env, ...env }, timeout: 120_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** A lighthouserc.json as Lighthouse CI's configuration docs show one. */
const lighthouserc = (lcpMs: number) => ({
  ci: {
    collect: { numberOfRuns: 3, url: ['http://localhost:8080/'] },
    assert: {
      assertions: {
        'categories:performance': ['warn', { minScore: 0.9 }],
        'categories:accessibility': ['error', { minScore: 0.9 }],
        'first-contentful-paint': ['error', { maxNumericValue: 2000, aggregationMethod: 'optimistic' }],
        'largest-contentful-paint': ['error', { maxNumericValue: lcpMs, aggregationMethod: 'median' }],
        'document-title': 'error',
        'uses-rel-preconnect': 'off',
        'speed-index': ['warn', { maxNumericValue: 3000 }],
      },
    },
    upload: { target: 'temporary-public-storage' },
  },
});

/** The JUnit schema's structure: testsuites > testsuite > testcase, with counts that add up. */
function checkJUnit(xml: string) {
  const $ = load(xml, { xml: true });
  const root = $('testsuites');
  expect(root).toHaveLength(1);
  let total = 0;
  let failures = 0;
  $('testsuites > testsuite').each((_, suite) => {
    const s = $(suite);
    expect(s.attr('name')).toBeTruthy();
    const cases = s.children('testcase');
    expect(Number(s.attr('tests'))).toBe(cases.length);
    expect(Number(s.attr('failures'))).toBe(s.find('testcase > failure').length);
    expect(Number(s.attr('errors'))).toBe(0);
    cases.each((_, c) => {
      expect($(c).attr('name')).toBeTruthy();
      expect($(c).attr('classname')).toBe(s.attr('name'));
      expect(Number.isFinite(Number($(c).attr('time')))).toBe(true);
      for (const child of $(c).children().toArray()) expect(['failure', 'system-out']).toContain(child.tagName);
      $(c)
        .children('failure')
        .each((_, f) => expect($(f).attr('message')).toBeTruthy());
    });
    total += cases.length;
    failures += Number(s.attr('failures'));
  });
  expect(Number(root.attr('tests'))).toBe(total);
  expect(Number(root.attr('failures'))).toBe(failures);
  return $;
}

describe('auditcaptcha assert', () => {
  it('exits 0 on a met budget, with JUnit and Markdown', { timeout: 150_000 }, async () => {
    await writeFile(path.join(dir, 'lighthouserc.json'), JSON.stringify(lighthouserc(2500)));
    const junit = path.join(dir, 'met.xml');
    const markdown = path.join(dir, 'met.md');
    const out = await cli(
      [
        '--budget',
        path.join(dir, 'lighthouserc.json'),
        '--runs',
        '3',
        '--junit',
        junit,
        '--markdown',
        markdown,
        site.url,
      ],
      { AUDITCAPTCHA_SERVER: server.url, AUDITCAPTCHA_KEY: key },
    );
    expect(out.stderr).toContain(`measuring ${site.url} (3 runs)`);
    expect(out.stdout).toBe('');
    expect(out.code).toBe(0);
    const $ = checkJUnit(await readFile(junit, 'utf8'));
    // One test case per assertion per URL (the one that is off is not one).
    expect($('testcase').length).toBe(6);
    expect($('testcase[name="speed-index maxNumericValue"] system-out').text()).toContain('not measured');
    const md = await readFile(markdown, 'utf8');
    expect(md).toContain('✅ Budget met');
    expect(md.indexOf('### Warnings')).toBeGreaterThan(0);
    expect(md).not.toContain('### Failures');
  });

  it('exits 1 when an error assertion fails, failures first with their fix', { timeout: 150_000 }, async () => {
    await writeFile(path.join(dir, 'strict.json'), JSON.stringify(lighthouserc(1)));
    const junit = path.join(dir, 'failed.xml');
    const markdown = path.join(dir, 'failed.md');
    const out = await cli([
      '--server',
      server.url,
      '--key',
      key,
      '--budget',
      path.join(dir, 'strict.json'),
      '--runs',
      '3',
      '--baseline',
      'last',
      '--junit',
      junit,
      '--markdown',
      markdown,
      site.url,
    ]);
    expect(out.code).toBe(1);
    const $ = checkJUnit(await readFile(junit, 'utf8'));
    expect($('testcase[name="largest-contentful-paint maxNumericValue"] > failure').attr('type')).toBe('failed');
    // The baseline (the first test's report) was tested: one case per metric.
    expect($('testcase[name="regression lcp"]')).toHaveLength(1);
    const md = await readFile(markdown, 'utf8');
    expect(md).toContain('❌ Budget not met');
    const failures = md.indexOf('### Failures');
    expect(failures).toBeGreaterThan(0);
    expect(failures).toBeLessThan(md.indexOf('### Warnings'));
    expect(md).toMatch(
      /largest-contentful-paint \(Largest Contentful Paint\) \| error .*Make the largest element load early/,
    );
  });

  it('exits 2 on a usage or service error', { timeout: 60_000 }, async () => {
    expect((await cli([site.url])).code).toBe(2); // no server
    expect((await cli(['--server', server.url, '--key', key, '--runs', 'many', site.url])).code).toBe(2);
    const wrongKey = await cli(['--server', server.url, '--key', 'ak_wrong', site.url]);
    expect(wrongKey.code).toBe(2);
    expect(wrongKey.stderr).toContain('401');
    await writeFile(path.join(dir, 'bad.json'), JSON.stringify({ assertions: { 'document-title': 'fatal' } }));
    const bad = await cli([
      '--server',
      server.url,
      '--key',
      key,
      '--render',
      '0',
      '--budget',
      path.join(dir, 'bad.json'),
      site.url,
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('422');
  });

  it('asserts an audit’s pages with its own budget', { timeout: 150_000 }, async () => {
    const created = await request(`${server.url}/api/v1/audits`, {
      method: 'POST',
      key,
      json: {
        url: site.url,
        max_pages: 1,
        render: '1',
        budget: { budgets: [{ path: '/*', assertions: { 'document-title': 'error', 'errors-in-console': 'warn' } }] },
      },
    });
    expect(created.status).toBe(202);
    const id = created.body.data.id;
    const deadline = Date.now() + 90_000;
    while ((await request(`${server.url}/api/v1/audits/${id}`, { key })).body.data.status !== 'completed') {
      if (Date.now() > deadline) throw new Error('audit did not complete');
      await new Promise((r) => setTimeout(r, 500));
    }
    const audit = await request(`${server.url}/api/v1/audits/${id}`, { key });
    expect(audit.body.data.pages[0].assertions).toMatchObject({ passed: 2, failed: 0 });
    const junit = path.join(dir, 'audit.xml');
    const out = await cli(['--server', server.url, '--key', key, '--audit', String(id), '--junit', junit]);
    expect(out.code).toBe(0);
    const $ = checkJUnit(await readFile(junit, 'utf8'));
    expect(
      $('testcase')
        .map((_, c) => $(c).attr('name'))
        .get(),
    ).toEqual(['document-title minScore', 'errors-in-console minScore']);
    expect((await cli(['--server', server.url, '--key', key, '--audit', String(id), '--baseline', '3'])).code).toBe(2);
  });
});
