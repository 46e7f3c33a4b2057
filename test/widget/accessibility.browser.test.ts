/**
 * The widget passes the audit the reports run (axe-core, the same engine and rules): every
 * state of every mode, and each provider's drop-in script, in real Chromium against the real
 * service, in light and dark colour schemes, with no violation of serious or critical impact.
 * axe runs in the page, scoped to the widgets' shadow hosts (it reads open shadow roots).
 * Test sitekeys keep the flows short where the test is not about the work; states the
 * service cannot be made to show on demand (a network failure, a rate limit, work still
 * running) come from answering the widget's request in the browser.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page, Route } from 'playwright-core';
import { TEST_SITEKEYS } from '../helpers/test-keys.ts';
import {
  contextOptions,
  launchChromium,
  requireChromium,
  sitePage,
  skipE2e,
  startStack,
  widgetIn,
  type Stack,
} from '../e2e/harness.ts';

const require = createRequire(import.meta.url);
const axeSource = readFileSync(path.join(path.dirname(require.resolve('axe-core')), 'axe.min.js'), 'utf8');

interface Finding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * axe's violations inside the widgets on `page`, in the light and the dark scheme; returns the
 * serious and critical ones as lines (an empty list passes). `seen` collects every rule that
 * ran, so a test can check that the widget was audited at all.
 */
async function audit(page: Page, seen?: Set<string>): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axeSource });
  const lines: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const { violations, passed } = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: typeof import('axe-core') }).axe;
      const r = await axe.run({ include: [['.auditcaptcha-widget']] }, { resultTypes: ['violations', 'passes'] });
      return {
        passed: r.passes.map((p) => p.id),
        violations: r.violations.map((v) => ({
          id: v.id,
          impact: v.impact ?? '',
          help: v.help,
          targets: v.nodes.map((n) => JSON.stringify(n.target)),
        })),
      };
    });
    for (const id of passed) seen?.add(id);
    for (const v of violations as Finding[]) {
      const line = `${scheme}: ${v.id} (${v.impact}) ${v.help}: ${v.targets.join(' ')}`;
      if (v.impact === 'serious' || v.impact === 'critical') lines.push(line);
      else console.log(`axe, below serious: ${line}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return lines;
}

/** A fulfilled JSON answer the widget can read across origins. */
const json = (route: Route, status: number, body: unknown, headers: Record<string, string> = {}) =>
  route.fulfill({
    status,
    contentType: 'application/json',
    headers: { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': 'Retry-After', ...headers },
    body: JSON.stringify(body),
  });

describe.skipIf(skipE2e)('the widget passes axe-core in every state, in Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  const seen = new Set<string>();

  beforeAll(async () => {
    requireChromium();
    [stack, browser] = await Promise.all([startStack(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  async function open(name: string, widget: string, script?: string): Promise<Page> {
    const page = await browser.newPage(contextOptions());
    await page.goto(stack.pages.page(`/a11y-${name}`, sitePage(stack.server.url, widget, { script })));
    return page;
  }

  /** Waits for the widget's state; every wait has its deadline. */
  const state = (page: Page, value: string, container = '[data-sitekey]') =>
    widgetIn(page, container).locator(`.box[data-state=${value}]`).waitFor({ state: 'attached', timeout: 15_000 });

  it('managed: idle, working with its progress bar, success', async () => {
    const page = await open('managed', `<div data-sitekey="${TEST_SITEKEYS.pass}"></div>`);
    await state(page, 'idle');
    expect(await audit(page, seen)).toEqual([]);

    // Work nobody finishes in a test's time: the widget stays on its progress state.
    let hold = true;
    await page.route('**/api/v2/challenges', (route) => {
      if (!hold) return route.continue();
      const expires = new Date(Date.now() + 120_000).toISOString();
      const probe = { s: { display: 'flex', width: '100px' }, c: [{ s: { flex: '1 1 0px' }, m: 1 }] };
      const work = {
        ticket: 't',
        id: 'saltsaltsaltsaltsaltsa',
        count: 2,
        bits: 30,
        expires_at: expires,
        env: { probe },
      };
      return json(route, 201, { outcome: 'pow', challenge: 'x', work, expires_at: expires });
    });
    await page.getByRole('checkbox', { name: 'Verify you are human' }).click();
    await widgetIn(page).getByRole('progressbar').waitFor();
    expect(await audit(page, seen)).toEqual([]);
    await page.evaluate(() => window.auditcaptcha!.reset());

    hold = false;
    await page.getByRole('checkbox', { name: 'Verify you are human' }).click();
    await state(page, 'success');
    expect(await audit(page, seen)).toEqual([]);
    // The checkbox's name and role, the contrast and the lang attribute were among the rules that ran.
    expect([...seen]).toEqual(
      expect.arrayContaining(['button-name', 'aria-allowed-role', 'color-contrast', 'valid-lang']),
    );
    await page.close();
  });

  it('managed escalated to the image: the challenge, a wrong answer, a rate limit, then success', async () => {
    const page = await open('image', `<div data-sitekey="${TEST_SITEKEYS.interactive}"></div>`);
    await page.getByRole('checkbox', { name: 'Verify you are human' }).click();
    await state(page, 'challenge');
    await page.waitForFunction(() =>
      document.querySelector('.auditcaptcha-widget')!.shadowRoot!.querySelector('img')!.src.startsWith('blob:'),
    );
    expect(await audit(page, seen)).toEqual([]);
    expect([...seen]).toEqual(expect.arrayContaining(['image-alt', 'label']));

    const answer = page.getByRole('textbox', { name: 'Type the characters shown in the image' });
    await answer.fill('WRONG');
    await answer.press('Enter');
    await widgetIn(page)
      .getByText(/That was not right/)
      .waitFor();
    expect(await audit(page, seen)).toEqual([]);

    await page.route('**/api/v1/challenges/*/verify', (route) =>
      json(route, 429, { message: 'Too many requests', status: 429 }, { 'Retry-After': '1' }),
    );
    await answer.fill('TEXT');
    await answer.press('Enter');
    await widgetIn(page)
      .getByText(/Too many attempts/)
      .waitFor();
    expect(await audit(page, seen)).toEqual([]);
    await widgetIn(page).getByText('You can try again now.').waitFor({ timeout: 5000 });
    await page.unroute('**/api/v1/challenges/*/verify');

    await answer.press('Enter');
    await state(page, 'success');
    expect(await audit(page, seen)).toEqual([]);
    await page.close();
  });

  it('explicit: the image challenge on load, and the way through without the image (real site)', async () => {
    const page = await open('explicit', `<div data-sitekey="${stack.site.sitekey}" data-mode="explicit"></div>`);
    const other = page.getByRole('button', { name: 'Cannot see the image? Verify without it' });
    await other.waitFor();
    expect(await audit(page, seen)).toEqual([]);
    await other.click();
    await widgetIn(page)
      .getByText(/Verifying without the image/)
      .waitFor();
    expect(await audit(page, seen)).toEqual([]);
    await page.evaluate(() => window.auditcaptcha!.reset()); // the long work is not this test's subject
    await page.close();
  });

  it('errors: the service unreachable, an origin refused, a server failure', async () => {
    const page = await open(
      'errors',
      `<div id="net" data-sitekey="${TEST_SITEKEYS.pass}"></div>
       <div id="refused" data-sitekey="${stack.elsewhere.sitekey}"></div>`,
    );
    await page.route('**/api/v2/challenges', (route) => route.abort('internetdisconnected'));
    await page.route('**/healthz', (route) => route.abort('internetdisconnected'));
    await page.locator('#net').getByRole('checkbox', { name: 'Verify you are human' }).click();
    await widgetIn(page, '#net')
      .getByText(/Could not reach the verification service/)
      .waitFor();
    await page.unrouteAll();
    await page.locator('#refused').getByRole('checkbox', { name: 'Verify you are human' }).click();
    await widgetIn(page, '#refused')
      .getByText(/not allowed to use this verification service/)
      .waitFor();
    expect(await audit(page, seen)).toEqual([]);

    await page.route('**/api/v2/challenges', (route) => json(route, 500, { message: 'Internal', status: 500 }));
    await page.locator('#net').getByRole('checkbox', { name: 'Try again' }).click();
    await widgetIn(page, '#net').getByText('Verification failed. Try again.').waitFor();
    expect(await audit(page, seen)).toEqual([]);
    await page.close();
  });

  it('expired tokens: explicit asks again, managed with manual refresh too (page clock moved on)', async () => {
    const page = await browser.newPage(contextOptions());
    await page.clock.install();
    await page.goto(
      stack.pages.page(
        '/a11y-expired',
        sitePage(
          stack.server.url,
          `<div id="x" data-sitekey="${TEST_SITEKEYS.pass}" data-mode="explicit"></div>
           <div id="m" data-sitekey="${TEST_SITEKEYS.pass}" data-refresh-expired="manual"></div>`,
        ),
      ),
    );
    await page.locator('#x').getByRole('textbox').fill('TEXT');
    await page.locator('#x').getByRole('button', { name: 'Check' }).click();
    await page.locator('#m').getByRole('checkbox', { name: 'Verify you are human' }).click();
    await state(page, 'success', '#x');
    await state(page, 'success', '#m');
    await page.clock.fastForward(291_000);
    await widgetIn(page, '#x').getByText('Verification expired. Verify again.').waitFor();
    await widgetIn(page, '#m').getByText('Verification expired. Verify again.').waitFor();
    expect(await audit(page, seen)).toEqual([]);
    await page.close();
  });

  it('invisible: nothing shown after a token; an error shows the box with its message', async () => {
    const page = await open('invisible', `<div data-sitekey="${TEST_SITEKEYS.pass}" data-mode="invisible"></div>`);
    await page.waitForFunction(() => !!window.auditcaptcha);
    const token = await page.evaluate(() => window.auditcaptcha!.execute('ac0'));
    expect(token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(await audit(page, seen)).toEqual([]);

    await page.evaluate(() => window.auditcaptcha!.reset('ac0'));
    await page.route('**/api/v3/challenges', (route) =>
      json(route, 429, { message: 'Too many requests', status: 429 }, { 'Retry-After': '30' }),
    );
    await page.evaluate(() => window.auditcaptcha!.execute('ac0').catch(() => ''));
    await widgetIn(page).getByText('Too many attempts. Try again in 30 seconds.').waitFor();
    expect(await audit(page, seen)).toEqual([]);
    await page.close();
  });

  /** A provider's page: its script from the service, its markup, our widget inside. */
  async function provider(name: string, script: string, markup: string): Promise<Page> {
    const page = await browser.newPage(contextOptions());
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${name}</title>
<script src="${stack.server.url}${script}" async defer></script></head>
<body><main><h1>${name}</h1><form action="/submit" method="post">${markup}<button>Send</button></form></main></body></html>`;
    await page.goto(stack.pages.page(`/a11y-${name}`, html));
    return page;
  }

  it('the drop-in scripts: Turnstile, reCAPTCHA and hCaptcha, before and after the visitor passes', async () => {
    const turnstile = await provider(
      'turnstile',
      '/turnstile/v0/api.js',
      `<div class="cf-turnstile" data-sitekey="${TEST_SITEKEYS.pass}"></div>`,
    );
    await state(turnstile, 'success', '.cf-turnstile'); // Turnstile runs at once
    expect(await audit(turnstile, seen)).toEqual([]);
    await turnstile.close();

    for (const [name, script, cls, sitekey] of [
      ['recaptcha', '/recaptcha/api.js', 'g-recaptcha', TEST_SITEKEYS.recaptcha],
      ['hcaptcha', '/1/api.js', 'h-captcha', TEST_SITEKEYS.hcaptcha],
    ]) {
      const page = await provider(name, script, `<div class="${cls}" data-sitekey="${sitekey}"></div>`);
      const box = page.getByRole('checkbox', { name: 'Verify you are human' });
      await box.waitFor();
      expect(await audit(page, seen)).toEqual([]);
      await box.click();
      await state(page, 'success', `.${cls}`);
      expect(await audit(page, seen)).toEqual([]);
      await page.close();
    }
  });
});
