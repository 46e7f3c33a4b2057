/**
 * The pages people read, in Chromium: a rendered report's share page (top, a failing check,
 * the print view) and the API reference (Swagger UI under its CSP, error codes as text, a call
 * tried with an API key). Screenshots go to docs/screenshots/.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { request } from '../helpers/http.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { startFixtureServer, type FixtureServer } from '../analyzer/fixtures/server.ts';
import { chromiumPath, renderSite } from '../analyzer/render/fixtures.ts';
import { launchChromium, requireChromium, skipE2e } from './harness.ts';

const shots = path.resolve(import.meta.dirname, '../../docs/screenshots');

describe.skipIf(skipE2e)('report share page and API reference in Chromium', () => {
  let services: TestServices;
  let server: TestServer;
  let site: FixtureServer;
  let browser: Browser;
  let key: string;

  beforeAll(async () => {
    requireChromium();
    services = await openTestServices({
      env: {
        ANALYZER_ALLOW_PRIVATE: 'true',
        ANALYZER_RENDER: 'auto',
        ANALYZER_CHROMIUM_PATH: chromiumPath,
        ANALYZER_RENDER_CONTEXTS: '1',
      },
    });
    server = await startTestServer(services);
    const routes: Parameters<typeof startFixtureServer>[0] = {};
    site = await startFixtureServer(routes);
    Object.assign(routes, await renderSite(site.origin));
    ({ key } = await createKeyedUser(services, 'reader'));
    browser = await launchChromium();
    mkdirSync(shots, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await site?.close();
    await services?.cleanup();
  });

  /** A page that records script errors, CSP violations included (Chromium logs them as console errors). */
  async function open(
    url: string,
    viewport = { width: 1100, height: 900 },
  ): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport, colorScheme: 'light' });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    const res = await page.goto(url);
    expect(res?.status()).toBe(200);
    return { page, problems };
  }

  it(
    'share page of a rendered report: top, a failing check with its fix, the print view',
    { timeout: 90_000 },
    async () => {
      const created = await request(`${server.url}/api/v1/reports`, {
        method: 'POST',
        key,
        json: { url: `${site.origin}/slow`, privacy: 0, render: 1 },
      });
      expect(created.status).toBe(201);
      // Every check of a rendered report, lab checks included, is in the catalogue.
      const catalogue = await request(`${server.url}/api/v1/checks`, { key });
      const described = new Set((catalogue.body.data as Array<{ id: string }>).map((c) => c.id));
      const produced = Object.keys(created.body.data.results as object);
      expect(produced).toContain('largest_contentful_paint');
      expect(produced.filter((id) => !described.has(id))).toEqual([]);
      const { page, problems } = await open(`${server.url}${created.body.data.share_url as string}`);

      await expect(page.locator('svg.gauge').isVisible()).resolves.toBe(true);
      expect(await page.locator('svg.gauge').getAttribute('aria-label')).toBe(
        `Score ${created.body.data.score} of 100`,
      );
      await page.screenshot({ path: path.join(shots, 'share-page-top.png') });

      const fixes = page.locator('#fix-first ol.fixes > li');
      expect(await fixes.count()).toBeGreaterThan(0);
      await expect(fixes.first().locator('.fix').textContent()).resolves.toMatch(/^How to fix: \S/);
      const failing = page.locator('article.check.failed').first();
      await failing.scrollIntoViewIfNeeded();
      await expect(failing.locator('.fix').textContent()).resolves.toMatch(/^How to fix: \S/);
      await failing.screenshot({ path: path.join(shots, 'share-page-failing-check.png') });

      // The lab measurements, each in a Lighthouse band.
      const bands = await page.locator('#lab .band').allTextContents();
      expect(bands.length).toBeGreaterThanOrEqual(4);
      for (const band of bands) expect(['Good', 'Needs improvement', 'Poor']).toContain(band);

      // Printed: everything that matters still shows.
      await page.emulateMedia({ media: 'print' });
      const essentials = ['header h1', 'svg.gauge', '.overview table', '#fix-first', '#lab', 'article.check'];
      for (const selector of essentials) {
        const all = page.locator(selector);
        expect(await all.count(), selector).toBeGreaterThan(0);
        for (const el of await all.all()) expect(await el.isVisible(), selector).toBe(true);
      }
      // phpRank's checks each an article; the accessibility rules are summed up in their own section.
      const checks = await page.locator('article.check').count();
      const ids = Object.keys(created.body.data.results as object);
      expect(checks).toBe(ids.filter((id) => !id.startsWith('a11y_')).length);
      expect(ids.some((id) => id.startsWith('a11y_'))).toBe(true);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: path.join(shots, 'share-page-print.png') });
      const pdf = await page.pdf({ format: 'A4' });
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');

      expect(problems).toEqual([]);
      await page.context().close();
    },
  );

  it(
    '/api/docs: Swagger UI under its CSP, error codes as text, a call tried with an API key',
    { timeout: 60_000 },
    async () => {
      const res = await fetch(`${server.url}/api/docs`);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/unsafe-eval|unsafe-inline|https?:/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');

      const { page, problems } = await open(`${server.url}/api/docs`, { width: 1280, height: 1000 });
      const op = page.locator('.opblock', {
        has: page.locator('.opblock-summary-path', { hasText: /^\/api\/v1\/checks$/ }),
      });
      await op.locator('.opblock-summary').first().click();
      const unauthorized = op.locator('tr.response[data-code="401"] .response-col_description');
      await unauthorized.first().waitFor();
      const text = await unauthorized.first().innerText();
      expect(text).toContain('ERR_API_KEY_MISSING');
      expect(text).toContain('ERR_API_KEY_INVALID');
      expect(text).not.toMatch(/[`*]/);
      await unauthorized
        .first()
        .locator('xpath=ancestor::tr')
        .screenshot({ path: path.join(shots, 'api-docs-error-codes.png') });

      // Authorize with an API key, then try the operation.
      await page.locator('.auth-wrapper .authorize').click();
      const dialog = page.locator('.dialog-ux .modal-ux');
      await dialog.locator('input').first().fill(key);
      await dialog.locator('button.authorize').click();
      await dialog.locator('button.btn-done').click();
      await op.locator('button.try-out__btn').click();
      await op.locator('button.execute').click();
      const status = op.locator('.live-responses-table .response .response-col_status').first();
      await status.waitFor();
      expect((await status.innerText()).trim()).toBe('200');
      await op.scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(shots, 'api-docs.png') });

      expect(problems).toEqual([]);
      await page.context().close();
    },
  );
});
