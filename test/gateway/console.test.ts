/**
 * The console's gateway section, in Chromium: a rule the service refuses shows its reason, a
 * valid set is saved, and the table says what each kind of visitor gets. axe-core finds no
 * serious or critical violation on the section.
 */
import axe from 'axe-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ensureInitialAccount } from '../../src/accounts/users.ts';
import { createSite } from '../../src/captcha/sites.ts';
import { openTestServices, startTestServer, type TestServer, type TestServices } from '../helpers/services.ts';
import { contextOptions, launchChromium, skipE2e } from '../e2e/harness.ts';

describe.skipIf(skipE2e)('the console’s gateway section', () => {
  let services: TestServices;
  let server: TestServer;
  let browser: Browser;
  let key: string;
  let sitekey: string;

  beforeAll(async () => {
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
  afterAll(async () => {
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
        const rules = form.getByLabel('Rules, in order (JSON)');
        await rules.fill(JSON.stringify([{ name: 'bad', user_agent: '(a+)+$', action: 'deny' }]));
        await form.getByRole('button', { name: 'Save gateway' }).click();
        await page
          .getByRole('alert')
          .getByText(/groups are not supported/)
          .waitFor({ timeout: 10_000 });

        await rules.fill(
          JSON.stringify([
            { name: 'search engines', preset: 'search-crawlers', action: 'allow' },
            { name: 'feeds', preset: 'feeds', action: 'allow' },
            { name: 'link previews', preset: 'link-previews', action: 'allow' },
            { name: 'AI crawlers', preset: 'ai-crawlers', action: 'deny' },
          ]),
        );
        await form.getByRole('button', { name: 'Save gateway' }).click();
        const table = page.getByRole('table', { name: /What each kind of visitor gets/ });
        await table.waitFor({ timeout: 10_000 });
        const ai = table.getByRole('row', { name: /AI crawler/ });
        await expect.poll(() => ai.textContent(), { timeout: 10_000 }).toContain('AI crawlers');
        expect(await ai.textContent()).toContain('deny');
        expect(await table.getByRole('row', { name: /verified Googlebot/ }).textContent()).toContain('search engines');

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
