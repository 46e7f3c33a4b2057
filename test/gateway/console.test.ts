/**
 * The console's gateway section, in Chromium: rules edited as groups of fields (added, moved,
 * removed), a rule the service refuses shows its reason, a valid set is saved as edited, and
 * the table says what each kind of visitor gets. axe-core finds no
 * serious or critical violation on the section.
 */
import axe from 'axe-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ensureInitialAccount } from '../../src/accounts/users.ts';
import { createSite } from '../../src/captcha/sites.ts';
import { openTestServices, startTestServer, type TestServer, type TestServices } from '../helpers/services.ts';
import { contextOptions, launchChromium, skipE2e } from '../e2e/harness.ts';
import { request } from '../helpers/http.ts';

describe.skipIf(skipE2e)('the console’s gateway section', () => {
  let services: TestServices;
  let server: TestServer;
  let browser: Browser;
  let key: string;
  let sitekey: string;

  // Per test: a retry (test/vitest.config.ts) starts from a site without a gateway, as the first try did.
  beforeEach(async () => {
    services = await openTestServices({ env: { CONSOLE_SIGN_IN_ATTEMPTS: '50' } });
    [server, browser] = await Promise.all([startTestServer(services), launchChromium()]);
    const first = (await ensureInitialAccount(services.orm.em.fork()))!;
    key = first.key;
    const { site } = await createSite(services.orm.em.fork(), first.user.id, {
      name: 'Shop',
      origins: ['https://shop.test'],
    });
    sitekey = site.sitekey;
  }, 60_000);
  afterEach(async () => {
    await browser?.close();
    await server?.close();
    await services?.cleanup();
  });

  it(
    'saves hosts and rules, names what the service refuses, and reports each visitor',
    { timeout: 90_000 },
    async () => {
      const context = await browser.newContext({
        ...contextOptions({ human: true }),
        viewport: { width: 1100, height: 900 },
      });
      try {
        const page = await context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(`${server.url}/console`);
        await page.getByLabel('API key').fill(key);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('heading', { name: 'Sites', level: 1 }).waitFor({ timeout: 15_000 });
        await page.goto(`${server.url}/console#/sites/${sitekey}`);
        const form = page.getByRole('form', { name: 'Gateway settings' });
        await form.waitFor({ timeout: 15_000 });
        await form.getByLabel('Protected hosts').fill('shop.test');
        await form.getByLabel('Contact shown on the challenge page').fill('help@shop.test');
        // The form starts from the usual four rules; a fifth, with a pattern the service refuses.
        await expect.poll(() => form.getByRole('group', { name: /^Rule \d/ }).count()).toBe(4);
        await form.getByRole('button', { name: 'Add a rule' }).click();
        const fifth = form.getByRole('group', { name: /^Rule 5/ });
        await fifth.getByLabel(/^Name/).fill('bad');
        await fifth.getByLabel(/^User-Agent pattern/).fill('(?=bot)');
        await fifth.getByLabel('Action').selectOption('deny');
        await form.getByRole('button', { name: 'Save gateway' }).click();
        await page
          .getByRole('alert')
          .getByText(/not a regular expression RE2 accepts/)
          .waitFor({ timeout: 10_000 });

        // Moved up a place it keeps its fields; removed, it is gone. A weighing rule in its place.
        await form.getByRole('button', { name: 'Move up rule 5' }).click();
        const moved = form.getByRole('group', { name: 'Rule 4: bad' });
        expect(await moved.getByLabel(/^User-Agent pattern/).inputValue()).toBe('(?=bot)');
        await form.getByRole('button', { name: 'Remove rule 4' }).click();
        await expect.poll(() => form.getByRole('group', { name: /^Rule \d/ }).count()).toBe(4);
        await form.getByRole('button', { name: 'Add a rule' }).click();
        const curl = form.getByRole('group', { name: /^Rule 5/ });
        await curl.getByLabel(/^Name/).fill('curl');
        await curl.getByLabel(/^User-Agent pattern/).fill('^curl/');
        await curl.getByLabel(/^Header patterns/).fill('Accept: ^text/\nX-Requested-With:');
        await curl.getByLabel('Action').selectOption('weigh');
        await curl.getByLabel(/^Weight/).fill('60');
        await form.getByRole('button', { name: 'Save gateway' }).click();
        const table = page.getByRole('table', { name: /What each kind of visitor gets/ });
        await table.waitFor({ timeout: 10_000 });
        const ai = table.getByRole('row', { name: /AI crawler/ });
        await expect.poll(() => ai.textContent(), { timeout: 10_000 }).toContain('AI crawlers');
        expect(await ai.textContent()).toContain('deny');
        expect(await table.getByRole('row', { name: /verified Googlebot/ }).textContent()).toContain('search engines');
        // What was saved, read back through the API: the four rules lost the fifth, kept their order, gained curl.
        const saved = await request(`${server.url}/api/v1/sites/${sitekey}/gateway`, { key });
        expect(saved.body.data.gateway.rules).toEqual([
          { name: 'search engines', preset: 'search-crawlers', action: 'allow' },
          { name: 'feeds', preset: 'feeds', action: 'allow' },
          { name: 'AI crawlers', preset: 'ai-crawlers', action: 'deny' },
          { name: 'link previews', preset: 'link-previews', action: 'allow' },
          {
            name: 'curl',
            user_agent: '^curl/',
            // Header names are matched without case, and stored in lower case.
            headers: { accept: '^text/', 'x-requested-with': '' },
            action: 'weigh',
            weight: 60,
          },
        ]);
        await form.getByRole('group', { name: 'Rule 5: curl' }).waitFor();

        await page.evaluate(axe.source);
        const violations = await page.evaluate(async () => {
          const result = await (window as unknown as { axe: typeof axe }).axe.run(document, {
            resultTypes: ['violations'],
          });
          return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
        });
        expect(violations).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    },
  );
});
