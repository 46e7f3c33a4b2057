import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import axe from 'axe-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ensureInitialAccount } from '../../src/accounts/users.ts';
import { chromiumPath } from '../analyzer/render/fixtures.ts';
import { request } from '../helpers/http.ts';
import { openTestServices, startTestServer, type TestServer, type TestServices } from '../helpers/services.ts';
import {
  answerImages,
  contextOptions,
  launchChromium,
  PageServer,
  requireChromium,
  skipE2e,
  widgetIn,
} from './harness.ts';

/** Where the console's screenshots go: docs/screenshots/console-*.png, linked from docs/console.md. */
const SHOTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'screenshots');

describe.skipIf(skipE2e)('the console, in Chromium', () => {
  let services: TestServices;
  let server: TestServer;
  let pages: PageServer;
  let browser: Browser;
  let firstKey: string;
  const axeFindings: Record<string, string[]> = {};

  // Per test, not per file: a retry (test/vitest.config.ts) then starts from an empty database
  // and its first start's key, as the first try did, not from what that try left behind.
  beforeEach(async () => {
    requireChromium();
    services = await openTestServices({
      env: {
        ANALYZER_ALLOW_PRIVATE: 'true',
        ANALYTICS_FLUSH_MS: '250',
        CONSOLE_SIGN_IN_ATTEMPTS: '50',
        // Rendering when asked (render=1), for a report's accessibility section.
        ANALYZER_RENDER: 'auto',
        ANALYZER_CHROMIUM_PATH: chromiumPath,
        ANALYZER_RENDER_CONTEXTS: '1',
        // The solved challenge the console counts earns its environment proof against the engine.
        CAPTCHA_ENGINE: 'auto',
      },
    });
    [server, pages, browser] = await Promise.all([
      startTestServer(services),
      new PageServer().start(),
      launchChromium(),
    ]);
    // The first start's account and key, made as bin/server.ts makes them on an empty database.
    firstKey = (await ensureInitialAccount(services.orm.em.fork()))!.key;
    mkdirSync(SHOTS, { recursive: true });
  }, 60_000);
  afterEach(async () => {
    await browser?.close();
    await pages?.close();
    await server?.close();
    await services?.cleanup();
    console.log('axe serious/critical violations per page:', JSON.stringify(axeFindings));
  });

  /** A console tab that records CSP refusals and page errors (both must stay empty). */
  async function consolePage(context: BrowserContext): Promise<{ page: Page; problems: string[] }> {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    return { page, problems };
  }

  /** axe-core on the page as it is; only serious and critical violations fail. */
  async function scan(page: Page, name: string): Promise<void> {
    await page.evaluate(axe.source);
    const violations = await page.evaluate(async () => {
      const result = await (window as unknown as { axe: typeof axe }).axe.run(document, {
        resultTypes: ['violations'],
      });
      return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
    });
    const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    axeFindings[name] = violations.map((v) => `${v.id}(${v.impact})`);
    expect(bad, `${name}: ${JSON.stringify(bad)}`).toEqual([]);
  }

  const shot = (page: Page, name: string) =>
    page.screenshot({ path: path.join(SHOTS, `console-${name}.png`), fullPage: true, animations: 'disabled' });

  /** Follows a link of the console's navigation. */
  /** Opens a console page from the menu and waits until it has replaced the one before. */
  const nav = async (page: Page, name: string) => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { level: 1, name }).waitFor();
  };

  /** Types the API key again in the dialog a change of a credential opens, and confirms. */
  async function confirmWithKey(page: Page, key: string, name?: string): Promise<void> {
    const dialog = page.getByRole('dialog', { name: 'Confirm with your API key' });
    await dialog.getByLabel('Your API key').fill(key);
    if (name) {
      await scan(page, name);
      await shot(page, name);
    }
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await dialog.waitFor({ state: 'detached' });
  }

  async function signIn(page: Page, key: string): Promise<void> {
    await page.goto(`${server.url}/console`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('signs in, manages a site, counts a solved challenge, audits a page, shares it, revokes a key and signs out', async () => {
    const context = await browser.newContext({
      ...contextOptions({ human: true }),
      viewport: { width: 1100, height: 900 },
    });
    const { page, problems } = await consolePage(context);

    // Sign in: a wrong key first, then the first start's key.
    await page.goto(`${server.url}/console`);
    await page.getByLabel('API key').waitFor();
    await scan(page, 'sign-in');
    await shot(page, 'sign-in');
    await signIn(page, 'ak_0000000000_' + 'x'.repeat(43));
    await page.getByRole('alert').getByText('Invalid or revoked API key.').waitFor();
    await page.getByLabel('API key').fill(firstKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Sites', level: 1 }).waitFor();
    const cookie = (await context.cookies()).find((c) => c.name === 'ac_console')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(cookie.expires).toBeGreaterThan(Date.now() / 1000);

    // Create a site for the page server's origin: its secret is shown once.
    await page.getByLabel('Name', { exact: true }).fill('Shop');
    await page.getByLabel(/^Origins/).fill(pages.origin);
    await page.getByRole('button', { name: 'Register site' }).click();
    // A site's secret is a credential: the session alone does not mint it. A wrong key is refused.
    await confirmWithKey(page, 'ak_0000000000_' + 'x'.repeat(43));
    await page.getByRole('alert').getByText('That is not an active API key of this account').waitFor();
    await page.getByRole('button', { name: 'Register site' }).click();
    await confirmWithKey(page, firstKey, 'confirm-key');
    const firstSecret = await page.getByTestId('secret').textContent();
    expect(firstSecret).toMatch(/^sec_/);
    await page.getByRole('cell', { name: 'Shop' }).waitFor();
    await scan(page, 'sites');
    await shot(page, 'sites');
    await page.getByRole('link', { name: 'open it' }).click();
    await page.getByRole('heading', { name: 'Shop', level: 1 }).waitFor();
    expect(await page.getByTestId('secret').count()).toBe(0); // never shown again

    // Rotate it: a new secret, shown once; the old one stops working.
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await confirmWithKey(page, firstKey);
    const secret = (await page.getByTestId('secret').textContent())!;
    expect(secret).toMatch(/^sec_/);
    expect(secret).not.toBe(firstSecret);
    // Edit its settings: the siteverify limit, and a minimum score of 0, since the visitor below
    // is Chromium driven over the DevTools protocol, which scores at most 0.3 (docs/challenges.md).
    await page.getByLabel(/^Siteverify calls a minute/).fill('300');
    await page.getByLabel(/^Minimum score/).fill('0');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();

    // Embed the managed snippet in a page of the site's origin and solve it: the image, read.
    await page.getByText('Widget, managed').click();
    const snippet = (await page.getByTestId('snippet-managed').textContent())!;
    expect(snippet).toContain(`${server.url}/widget.js`);
    const sitekey = /data-sitekey="([^"]+)"/.exec(snippet)![1];
    const customer = await context.newPage();
    const answered = answerImages({ services }, customer);
    await customer.goto(
      pages.page(
        '/embedded',
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body>
<label>Name <input id="name"></label>
${snippet}
</body></html>`,
      ),
    );
    const verify = customer.getByRole('checkbox', { name: 'Verify you are human' });
    await verify.waitFor();
    await customer.locator('#name').click();
    await customer.keyboard.type('Ada');
    await customer.waitForFunction(() => performance.now() > 1700);
    await verify.click();
    await widgetIn(customer).getByText('Success! You are verified.').waitFor({ timeout: 60_000 });
    expect(answered).toHaveLength(1);
    const token = await customer.locator('input[name="ac-response"]').inputValue();
    const old = await request(`${server.url}/api/v1/siteverify`, {
      method: 'POST',
      json: { secret: firstSecret, response: token },
    });
    expect(old.body['error-codes']).toEqual(['invalid-input-secret']);
    const verified = await request(`${server.url}/api/v1/siteverify`, {
      method: 'POST',
      json: { secret, response: token, sitekey },
    });
    expect(verified.body.success).toBe(true);
    await customer.close();

    // The count appears in the site's chart (flushed off the request path within a moment).
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return [
            await page.getByTestId('issued-total').textContent(),
            await page.getByTestId('verified-total').textContent(),
          ];
        },
        { timeout: 15_000, interval: 500 },
      )
      .toEqual(['1', '1']);
    expect(await page.locator('.chart canvas').count()).toBeGreaterThan(0);
    await scan(page, 'site');
    await shot(page, 'site');
    await nav(page, 'Analytics');
    await page.getByRole('heading', { name: 'Analytics, all sites' }).waitFor();
    await expect.poll(() => page.getByTestId('solved-total').textContent()).toBe('1');
    await scan(page, 'analytics');
    await shot(page, 'analytics');

    // Audit a local page: progress while it is analysed, then its report.
    const audited = pages.page(
      '/audited',
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Audited page</title><meta name="description" content="A page the console audits."></head><body><h1>Hello</h1><p>Some text.</p></body></html>',
    );
    await nav(page, 'Reports');
    await page.getByLabel('Page address').fill(audited);
    await page.getByRole('button', { name: 'Create report' }).click();
    await page.getByRole('status').filter({ hasText: 'Analysing the page' }).waitFor();
    await page.getByRole('heading', { level: 1, name: audited.replace(/^http:\/\//, '') }).waitFor({ timeout: 60_000 });
    await page.getByRole('heading', { name: 'SEO', level: 2 }).waitFor();
    // A server-rendered page is not rendered in auto mode: its accessibility needs rendering.
    await page.getByTestId('a11y-status').filter({ hasText: 'Needs rendering' }).waitFor();
    await scan(page, 'report');
    await shot(page, 'report');

    // Privacy: public, then its share link opens for anyone.
    await page.getByLabel('Privacy').selectOption('0');
    await page.getByRole('button', { name: 'Save privacy' }).click();
    await page.getByText('Privacy saved.').waitFor();
    const shareUrl = await page.getByTestId('share-link').evaluate((a) => (a as HTMLAnchorElement).href);
    const anyone = await browser.newContext();
    const shared = await anyone.newPage();
    const opened = await shared.goto(shareUrl);
    expect(opened!.status()).toBe(200);
    await shared.getByText('Audited page').first().waitFor();
    // Password-protected: the share page now asks for it.
    await page.getByLabel('Privacy').selectOption('2');
    await page.getByLabel('Password', { exact: true }).fill('open sesame');
    await page.getByRole('button', { name: 'Save privacy' }).click();
    await page.getByText('Privacy saved.').waitFor();
    await shared.goto(shareUrl);
    await shared.locator('input[type=password]').waitFor();
    await anyone.close();
    // Re-analyse: progress, then the button is back.
    await page.getByRole('button', { name: 'Re-analyse' }).click();
    await page.getByRole('button', { name: 'Re-analyse' }).and(page.locator(':enabled')).waitFor({ timeout: 60_000 });

    // A rendered report of a page with faults: the accessibility score, failing rules with their elements.
    const faulty = pages.page(
      '/faulty',
      '<!doctype html><html><head><meta charset="utf-8"><title>Faulty page</title></head><body><main><h1>Faulty</h1><p>Text.</p><img src="/faulty.gif" width="20" height="20"></main></body></html>',
    );
    await nav(page, 'Reports');
    await page.getByLabel('Page address').fill(faulty);
    await page.getByLabel(/Render in Chromium/).check();
    await page.getByRole('button', { name: 'Create report' }).click();
    await page.getByRole('heading', { level: 1, name: faulty.replace(/^http:\/\//, '') }).waitFor({ timeout: 60_000 });
    await page.getByTestId('a11y-status').filter({ hasText: 'Accessibility score' }).waitFor();
    const failedRules = page.getByRole('table', { name: /Failed, heaviest first/ });
    await failedRules.getByRole('rowheader', { name: 'image alt' }).waitFor();
    await failedRules.getByRole('rowheader', { name: 'html has lang' }).waitFor();
    expect(await failedRules.getByRole('row').filter({ hasText: 'image alt' }).textContent()).toContain('img');
    await scan(page, 'report-accessibility');
    await shot(page, 'report-accessibility');

    await nav(page, 'Reports');
    await page.getByRole('link', { name: audited.replace(/^http:\/\//, '') }).waitFor();
    await scan(page, 'reports');
    await shot(page, 'reports');
    await nav(page, 'Projects');
    await page.getByRole('cell', { name: '127.0.0.1', exact: true }).waitFor();
    await scan(page, 'projects');
    await shot(page, 'projects');
    // The projects list shows its grade; a second report of the same host is deleted with it below.
    await expect
      .poll(() => page.getByRole('row').filter({ hasText: '127.0.0.1' }).textContent())
      .toMatch(/good|decent|bad/);

    // A second key, shown once; a session opened with it ends when it is revoked.
    await nav(page, 'API keys');
    await page.getByLabel('Name').fill('laptop');
    await page.getByRole('button', { name: 'Create key' }).click();
    await confirmWithKey(page, firstKey);
    const second = (await page.getByTestId('secret').textContent())!;
    expect(second).toMatch(/^ak_/);
    await scan(page, 'keys');
    await shot(page, 'keys');
    const other = await browser.newContext(contextOptions());
    const { page: otherPage } = await consolePage(other);
    await signIn(otherPage, second);
    await otherPage.getByRole('heading', { name: 'Sites', level: 1 }).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'laptop' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Yes, revoke' }).click();
    await confirmWithKey(page, firstKey);
    await row.getByText(/^Revoked/).waitFor();
    // The revoked session never shows the page it asked for: it is sent back to the sign-in.
    await otherPage
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'API keys', exact: true })
      .click();
    await otherPage.getByText('The API key of this session was revoked').waitFor();
    await otherPage.getByLabel('API key').waitFor();
    await other.close();

    // Narrow screens: the page fits a phone's width.
    await page.setViewportSize({ width: 375, height: 800 });
    await nav(page, 'Sites');
    await page.getByRole('cell', { name: 'Shop' }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await scan(page, 'sites-narrow');
    await shot(page, 'sites-narrow');

    // Delete the project (its report goes with it) and the site, each after a confirmation.
    await nav(page, 'Projects');
    const project = page.getByRole('row').filter({ hasText: '127.0.0.1' });
    await project.getByRole('button', { name: 'Delete' }).click();
    await project.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByText('No projects yet').waitFor();
    await nav(page, 'Sites');
    await page.getByRole('link', { name: 'Shop' }).click();
    await page.getByRole('button', { name: 'Delete site' }).click();
    await page.getByRole('button', { name: 'Yes, delete site' }).click();
    await confirmWithKey(page, firstKey);
    await page.getByText('No sites yet').waitFor();

    // Sign out: back to the form, and a reload stays signed out.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    await page.reload();
    await page.getByLabel('API key').waitFor();
    expect(problems).toEqual([]);
    await context.close();
  }, 240_000);
});
