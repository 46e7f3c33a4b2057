/**
 * The console's site audits in Chromium: the list with each audit's budget verdict, an audit's
 * page with its budget in Lighthouse CI's words, edited and saved (the API then answers the new
 * budget and runs), a budget that is not JSON refused in the page, and no serious axe finding.
 */
import axe from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.ts';
import { request } from '../helpers/http.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { contextOptions, launchChromium, requireChromium, skipE2e } from './harness.ts';

describe.skipIf(skipE2e)('site audits in the console', () => {
  let services: TestServices;
  let server: TestServer;
  let site: FixtureSite;
  let browser: Browser;
  let key: string;

  beforeAll(async () => {
    requireChromium();
    services = await openTestServices({
      queue: true,
      env: { ANALYZER_ALLOW_PRIVATE: 'true', AUDIT_HOST_DELAY_MS: '0', QUEUE_MONITOR_SECONDS: '2' },
    });
    [server, site, browser] = await Promise.all([startTestServer(services), startFixtureSite(), launchChromium()]);
    ({ key } = await createKeyedUser(services, 'console-audits'));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await server?.close();
    await services?.cleanup();
  });

  async function noSeriousAxe(page: Page) {
    await page.evaluate(axe.source);
    const violations = await page.evaluate(async () => {
      const r = await (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] });
      return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
    });
    expect(violations).toEqual([]);
  }

  it('shows an audit’s budget verdict and saves an edited budget', { timeout: 120_000 }, async () => {
    const created = await request(`${server.url}/api/v1/audits`, {
      method: 'POST',
      key,
      json: {
        url: `${site.url}/good`,
        max_pages: 1,
        budget: { ci: { assert: { assertions: { 'meta-description': 'error', doctype: 'warn' } } } },
      },
    });
    expect(created.status).toBe(202);
    const id = created.body.data.id as number;
    const deadline = Date.now() + 60_000;
    while ((await request(`${server.url}/api/v1/audits/${id}`, { key })).body.data.status !== 'completed') {
      if (Date.now() > deadline) throw new Error('audit did not complete');
      await new Promise((r) => setTimeout(r, 300));
    }

    const context = await browser.newContext(contextOptions({ human: true }));
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${server.url}/console`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Site audits', exact: true })
      .click();
    const row = page.getByTestId(`audit-${id}`);
    await expect.poll(() => row.textContent()).toContain('0 of 1 page(s) failing');
    await noSeriousAxe(page);

    await row.getByRole('link').click();
    const budget = page.getByLabel(/^Budget/);
    await expect.poll(() => budget.inputValue()).toContain('meta-description');
    expect(await page.getByRole('table').textContent()).toContain('2 passed, 0 failed, 0 not measured');
    await noSeriousAxe(page);

    await budget.fill('{"assertions": ');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('The budget is not JSON').waitFor();

    await budget.fill(
      JSON.stringify({ budgets: [{ path: '/blog/*', assertions: { 'largest-contentful-paint': 'error' } }] }),
    );
    await page.getByLabel('Runs per page').fill('3');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved; the next run uses it.').waitFor();
    const after = await request(`${server.url}/api/v1/audits/${id}`, { key });
    expect(after.body.data).toMatchObject({
      runs: 3,
      budget: [{ path: '/blog/*', assertions: { 'largest-contentful-paint': 'error' } }],
    });
    expect(problems).toEqual([]);
    await context.close();
  });
});
