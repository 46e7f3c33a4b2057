/**
 * For the compatibility scripts' browser tests: the e2e stack (service, page server on
 * another origin with a registered site, Chromium), an automated visitor that reads the image
 * it is given, and siteverify at a provider's path with the exactly-once check.
 *
 * Chromium here is driven over the DevTools protocol, and the score sees it (at most 0.3):
 * the pages use the stack's site that accepts every score (`anyScore`), so what is tested is
 * the drop-ins' mechanics at the score such a browser earns. That a person passes each
 * provider's path at the default minimum is test/adversary/person.test.ts's.
 */
import { expect } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { request } from '../helpers/http.ts';
import {
  answerImages,
  contextOptions,
  launchChromium,
  requireChromium,
  startStack,
  type Stack,
} from '../e2e/harness.ts';

export { skipE2e } from '../e2e/harness.ts';

export interface CompatStack {
  stack: Stack;
  browser: Browser;
  /** The site the pages embed and verify with: the stack's `anyScore` (minimum score 0). */
  site: { sitekey: string; secret: string };
  /** The service's address: what replaces the provider's host in a page. */
  host: string;
  close(): Promise<void>;
}

export async function openCompatStack(): Promise<CompatStack> {
  requireChromium();
  const [stack, browser] = await Promise.all([startStack(), launchChromium()]);
  return {
    stack,
    browser,
    site: stack.anyScore,
    host: stack.server.url,
    async close() {
      await browser.close();
      await stack.close();
    },
  };
}

/** A page in its own context, whose image challenges are answered (e2e harness `answerImages`). */
export async function visitorPage(
  c: CompatStack,
  path: string,
  html: string,
): Promise<{ page: Page; context: BrowserContext; answered: string[] }> {
  const context = await c.browser.newContext(contextOptions());
  const page = await context.newPage();
  const answered = answerImages(c.stack, page);
  page.on('pageerror', (err) => console.error(`page error on ${path}:`, err.message));
  await page.goto(c.stack.pages.page(path, html));
  return { page, context, answered };
}

/** Time on the page and a few presses before the box is clicked, as a visitor leaves them. */
export async function lingerOnPage(page: Page): Promise<void> {
  await page.mouse.move(100, 100);
  await page.keyboard.press('Shift');
  await page.keyboard.press('Shift');
  await page.keyboard.press('Shift');
  await page.waitForFunction(() => performance.now() > 1700);
}

/** `window.got`, where the pages' callbacks put what they receive. */
export const got = (page: Page) => page.evaluate(() => (window as unknown as { got: unknown[][] }).got);

/** Waits until the page's callbacks have recorded `n` entries and returns them. */
export async function waitForGot(page: Page, n = 1, timeout = 60_000): Promise<unknown[][]> {
  try {
    await page.waitForFunction((n) => ((window as unknown as { got?: unknown[] }).got ?? []).length >= n, n, {
      timeout,
    });
  } catch (err) {
    // Say where the widgets stood (an image challenge, an error, still working), not only that time ran out.
    const widgets = await page
      .locator('[role="checkbox"], [role="status"], img, [role="alert"]')
      .evaluateAll((els) =>
        els.map((el) =>
          `${el.getAttribute('role') ?? el.tagName}: ${el.getAttribute('aria-checked') ?? ''} ${el.textContent ?? ''}`.trim(),
        ),
      )
      .catch(() => []);
    throw new Error(
      `${(err as Error).message}\nwidgets: ${JSON.stringify(widgets)}\ngot: ${JSON.stringify(await got(page).catch(() => null))}`,
    );
  }
  return got(page);
}

export type SiteverifyPath = '/turnstile/v0/siteverify' | '/recaptcha/api/siteverify' | '/siteverify';

export function siteverify(c: CompatStack, path: SiteverifyPath, form: Record<string, string>) {
  return request(`${c.host}${path}`, { method: 'POST', form }).then((r) => {
    expect(r.status).toBe(200);
    return r.body;
  });
}

/** Verifies `token` with the site's secret at `path`: success the first time, spent the second. Returns the verdict. */
export async function verifiesOnce(
  c: CompatStack,
  path: SiteverifyPath,
  token: string,
): Promise<Record<string, unknown>> {
  const first = await siteverify(c, path, { secret: c.site.secret, response: token });
  expect(first).toMatchObject({ success: true, hostname: '127.0.0.1' });
  const again = await siteverify(c, path, { secret: c.site.secret, response: token });
  expect(again.success).toBe(false);
  expect(again['error-codes']).toEqual([
    path === '/siteverify' ? 'invalid-or-already-seen-response' : 'timeout-or-duplicate',
  ]);
  return first;
}

/** A hidden field's value in the page, by name. */
export const field = (page: Page, name: string) => page.locator(`[name="${name}"]`).first().inputValue();
