import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { request } from '../helpers/http.ts';
import { TEST_SITEKEYS } from '../helpers/test-keys.ts';
import { attempt, passes, puzzleKey } from '../../pow/walk.ts';
import {
  answerImages,
  contextOptions,
  launchChromium,
  requireChromium,
  shoot,
  sitePage,
  skipE2e,
  startStack,
  widgetIn,
  type Stack,
} from './harness.ts';

describe.skipIf(skipE2e)('widget, managed mode, in Chromium', () => {
  let stack: Stack;
  let browser: Browser;

  beforeAll(async () => {
    requireChromium();
    [stack, browser] = await Promise.all([startStack(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  const events = (page: Page) => page.evaluate(() => (window as unknown as { events: unknown[][] }).events);
  const siteverify = (secret: string, response: string) =>
    request(`${stack.server.url}/api/v1/siteverify`, { method: 'POST', json: { secret, response } }).then(
      (r) => r.body,
    );

  /** Time on page past the fast-submit rule, and a few presses, as a visitor leaves them. */
  async function lingerOnPage(page: Page) {
    await page.locator('#name').click();
    await page.keyboard.type('Ada');
    await page.waitForFunction(() => performance.now() > 1700);
  }

  // Chromium here is driven over the DevTools protocol, and the score sees it (at most 0.3,
  // docs/challenges.md): such a browser gets the image, not the invisible work. The pass after
  // the work alone is a person's, in test/adversary/person.test.ts.

  it('an automated browser reads the image; the form posts the token under every asked-for name', async () => {
    const context = await browser.newContext(contextOptions());
    const page = await context.newPage();
    const answered = answerImages(stack, page);
    const url = stack.pages.page(
      '/managed-pass',
      sitePage(
        stack.server.url,
        `<div data-sitekey="${stack.anyScore.sitekey}" data-action="signup" data-callback="onToken" data-response-field-aliases="turnstile,recaptcha"></div>`,
      ),
    );
    await page.goto(url);
    const widget = widgetIn(page);
    const verify = page.getByRole('checkbox', { name: 'Verify you are human' });
    await verify.waitFor();
    await shoot(page, widget, 'managed-idle');
    await lingerOnPage(page);
    const created = page.waitForResponse((r) => r.url().endsWith('/api/v2/challenges'));
    await verify.click();
    expect((await (await created).json()).outcome).toBe('challenge');
    await widget.getByText('Success! You are verified.').waitFor();
    expect(answered).toHaveLength(1);
    await shoot(page, widget, 'managed-success');

    const [[kind, token]] = (await events(page)) as [string, string][];
    expect(kind).toBe('token');
    const names = await page
      .locator('#f input[type=hidden]')
      .evaluateAll((els) => els.map((e) => [(e as HTMLInputElement).name, (e as HTMLInputElement).value]));
    expect(names).toEqual([
      ['ac-response', token],
      ['cf-turnstile-response', token],
      ['g-recaptcha-response', token],
    ]);
    await page.locator('#send').click();
    await page.getByRole('heading', { name: 'Received' }).waitFor();
    const posted = stack.pages.posted.at(-1)!.fields;
    expect(posted).toMatchObject({
      name: 'Ada',
      'ac-response': token,
      'cf-turnstile-response': token,
      'g-recaptcha-response': token,
    });

    const verdict = await siteverify(stack.anyScore.secret, token);
    expect(verdict).toMatchObject({ success: true, hostname: '127.0.0.1', action: 'signup', 'error-codes': [] });
    // The token says what it is, the score the image left it, and why.
    expect(verdict).toMatchObject({ kind: 'v1', score: expect.any(Number) });
    expect(verdict.score).toBeLessThanOrEqual(0.3);
    expect(verdict.reasons).toContain('devtools_protocol');
    await context.close();
  }, 90_000);

  it('headless Chromium as launched goes to the image at once; its token stays below the default minimum', async () => {
    const context = await browser.newContext(contextOptions());
    const page = await context.newPage();
    const answered = answerImages(stack, page);
    await page.goto(
      stack.pages.page(
        '/managed-headless',
        sitePage(stack.server.url, `<div data-sitekey="${stack.site.sitekey}" data-callback="onToken"></div>`),
      ),
    );
    await lingerOnPage(page);
    const created = page.waitForResponse((r) => r.url().endsWith('/api/v2/challenges'));
    await page.getByRole('checkbox', { name: 'Verify you are human' }).click();
    expect((await (await created).json()).outcome).toBe('challenge');
    const widget = widgetIn(page);
    await widget.getByText('Success! You are verified.').waitFor();
    expect(answered).toHaveLength(1);
    const [[, token]] = (await events(page)) as [string, string][];
    const refused = await siteverify(stack.site.secret, token);
    expect(refused).toMatchObject({ success: false });
    expect(refused.reasons).toEqual(expect.arrayContaining(['devtools_protocol', 'below_site_minimum']));
    await context.close();
  }, 90_000);

  it('shows the proof-of-work progress bar while it works', async () => {
    const page = await browser.newPage(contextOptions());
    // A puzzle nobody finishes in a test's time: the widget stays on its progress state.
    await page.route('**/api/v2/challenges', (route) =>
      route.fulfill({
        status: 201,
        contentType: 'application/json',
        headers: { 'Access-Control-Allow-Origin': '*' },
        body: JSON.stringify({
          outcome: 'pow',
          challenge: 'x',
          work: {
            ticket: 't',
            id: 'saltsaltsaltsaltsaltsa',
            count: 32,
            bits: 30,
            expires_at: new Date(Date.now() + 120_000).toISOString(),
            env: { probe: { s: { display: 'flex', width: '100px' }, c: [{ s: { flex: '1 1 0px' }, m: 1 }] } },
          },
          expires_at: new Date(Date.now() + 120_000).toISOString(),
        }),
      }),
    );
    await page.goto(
      stack.pages.page(
        '/managed-working',
        sitePage(stack.server.url, `<div data-sitekey="${TEST_SITEKEYS.pass}"></div>`),
      ),
    );
    await page.getByRole('checkbox', { name: 'Verify you are human' }).click();
    const widget = widgetIn(page);
    await widget.getByText(/Verifying… \d+%/).waitFor();
    await widget.getByText('Checking your browser; this can take a few seconds.').waitFor();
    expect(await widget.locator('.box').getAttribute('aria-busy')).toBe('true');
    expect(await widget.getByRole('progressbar', { name: 'Verification progress' }).isVisible()).toBe(true);
    await shoot(page, widget, 'managed-working');
    await page.evaluate(() => window.auditcaptcha!.reset());
    await widget.getByRole('checkbox', { name: 'Verify you are human' }).waitFor();
    await page.close();
  });

  it('solves on the page when a CSP forbids blob: workers', async () => {
    const page = await browser.newPage(contextOptions());
    const id = 'csp-fallback-salt-00000';
    const work = {
      ticket: 't',
      id,
      count: 4,
      bits: 6,
      expires_at: new Date(Date.now() + 120_000).toISOString(),
      env: { seed: 7, ops: [[3, 1, 2, 3, 9]] },
    };
    const solved = (solutions: string) =>
      solutions.split(',').length === 4 &&
      solutions.split(',').every((n, i) => passes(attempt(puzzleKey(id, i), Number(n)), 6));
    await page.route('**/api/v2/challenges', (route) =>
      route.fulfill({
        status: 201,
        contentType: 'application/json',
        headers: { 'Access-Control-Allow-Origin': '*' },
        body: JSON.stringify({ outcome: 'pow', challenge: 'csp', work, expires_at: work.expires_at }),
      }),
    );
    let solutions = '';
    await page.route('**/api/v2/challenges/csp/verify', async (route) => {
      solutions = new URLSearchParams(route.request().postData() ?? '').get('solutions') ?? '';
      const ok = solved(solutions);
      await route.fulfill({
        contentType: 'application/json',
        headers: { 'Access-Control-Allow-Origin': '*' },
        body: JSON.stringify(
          ok
            ? { success: true, token: 'x'.repeat(40), expires_at: new Date(Date.now() + 300_000).toISOString() }
            : { success: false, error: 'invalid-proof', attempts_left: 2 },
        ),
      });
    });
    const refusals: string[] = [];
    page.on('console', (m) => m.text().includes('worker-src') && refusals.push(m.text()));
    const csp = `<meta http-equiv="Content-Security-Policy" content="worker-src 'none'">`;
    await page.goto(
      stack.pages.page(
        '/csp',
        sitePage(stack.server.url, `<div data-sitekey="${TEST_SITEKEYS.pass}"></div>`, { head: csp }),
      ),
    );
    await page.getByRole('checkbox', { name: 'Verify you are human' }).click();
    await widgetIn(page).getByText('Success! You are verified.').waitFor();
    expect(solved(solutions)).toBe(true);
    expect(refusals.length).toBeGreaterThan(0); // the worker really was refused
    await page.close();
  });

  it('escalates to the image challenge (test key 3x…FF) and accepts the answer TEXT', async () => {
    const page = await browser.newPage(contextOptions());
    await page.goto(
      stack.pages.page(
        '/escalate',
        sitePage(stack.server.url, `<div data-sitekey="${TEST_SITEKEYS.interactive}" data-callback="onToken"></div>`),
      ),
    );
    const widget = widgetIn(page);
    await page.getByRole('checkbox', { name: 'Verify you are human' }).click();
    const answer = page.getByRole('textbox', { name: 'Type the characters shown in the image' });
    await answer.waitFor();
    await page.waitForFunction(() => {
      const img = document.querySelector('.auditcaptcha-widget')!.shadowRoot!.querySelector('img')!;
      return img.complete && img.naturalWidth === 220 && img.src.startsWith('blob:');
    });
    // Focus follows the visitor from the button to the answer field.
    expect(await answer.evaluate((el) => el === (el.getRootNode() as ShadowRoot).activeElement)).toBe(true);
    await shoot(page, widget, 'challenge');
    await answer.fill('text'); // answers are case-insensitive
    await page.getByRole('button', { name: 'Check' }).click();
    await widget.getByText('Success! You are verified.').waitFor();
    const [[kind, token]] = (await events(page)) as [string, string][];
    expect(kind).toBe('token');
    expect(token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    await page.close();
  });

  it('submitting without a token runs the managed flow first, then sends the form', async () => {
    const page = await browser.newPage(contextOptions());
    await page.goto(
      stack.pages.page('/submit-first', sitePage(stack.server.url, `<div data-sitekey="${TEST_SITEKEYS.pass}"></div>`)),
    );
    await page.getByRole('checkbox', { name: 'Verify you are human' }).waitFor();
    const before = stack.pages.posted.length;
    await page.locator('#send').click();
    await page.getByRole('heading', { name: 'Received' }).waitFor();
    expect(stack.pages.posted.length).toBe(before + 1);
    expect(stack.pages.posted.at(-1)!.fields['ac-response']).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    await page.close();
  });

  it('uses supplied translations', async () => {
    const page = await browser.newPage(contextOptions());
    const script = `<script>window.auditcaptchaTranslations={fr:{verify:'Vérifiez que vous êtes humain',label:'Vérification'}}</script>`;
    await page.goto(
      stack.pages.page(
        '/fr',
        sitePage(stack.server.url, `<div data-sitekey="${TEST_SITEKEYS.pass}" data-language="fr-CA"></div>`, {
          script,
        }),
      ),
    );
    await page.getByRole('checkbox', { name: 'Vérifiez que vous êtes humain' }).waitFor();
    expect(await page.getByRole('group', { name: 'Vérification' }).count()).toBe(1);
    await page.close();
  });
});
