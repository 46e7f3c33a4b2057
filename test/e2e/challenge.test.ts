import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { request } from '../helpers/http.ts';
import { TEST_SITEKEYS } from '../helpers/test-keys.ts';
import {
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

describe.skipIf(skipE2e)('widget, image challenge and the explicit API, in Chromium', () => {
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
  const callbacks = 'data-callback="onToken" data-expired-callback="onExpired" data-error-callback="onError"';
  const answerBox = (page: Page) => page.getByRole('textbox', { name: 'Type the characters shown in the image' });
  const imageSrc = (page: Page) =>
    page.evaluate(() => document.querySelector('.auditcaptcha-widget')!.shadowRoot!.querySelector('img')!.src);

  it('explicit mode: a wrong answer is explained, a new image can be had, then the right answer passes', async () => {
    const page = await browser.newPage(contextOptions());
    await page.goto(
      stack.pages.page(
        '/explicit',
        sitePage(
          stack.server.url,
          `<div data-sitekey="${TEST_SITEKEYS.pass}" data-mode="explicit" ${callbacks}></div>`,
        ),
      ),
    );
    const widget = widgetIn(page);
    await answerBox(page).waitFor();
    await page.waitForFunction(() =>
      document.querySelector('.auditcaptcha-widget')!.shadowRoot!.querySelector('img')!.src.startsWith('blob:'),
    );

    const first = await imageSrc(page);
    await page.getByRole('button', { name: 'New image' }).click();
    await page.waitForFunction(
      (old) => document.querySelector('.auditcaptcha-widget')!.shadowRoot!.querySelector('img')!.src !== old,
      first,
    );

    await answerBox(page).fill('WRONG');
    await answerBox(page).press('Enter');
    await widget.getByText('That was not right. Attempts left: 2. Try again or choose New image.').waitFor();
    expect(await answerBox(page).inputValue()).toBe('');
    await shoot(page, widget, 'challenge-wrong');

    await answerBox(page).fill('TEXT');
    await answerBox(page).press('Enter');
    await widget.getByText('Success! You are verified.').waitFor();
    const [[kind]] = (await events(page)) as [string][];
    expect(kind).toBe('token');
    expect(await page.locator('input[name=ac-response]').inputValue()).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    await page.close();
  });

  it('explicit mode: the form is held back until the challenge is solved', async () => {
    const page = await browser.newPage(contextOptions());
    await page.goto(
      stack.pages.page(
        '/explicit-guard',
        sitePage(stack.server.url, `<div data-sitekey="${TEST_SITEKEYS.pass}" data-mode="explicit"></div>`),
      ),
    );
    await answerBox(page).waitFor();
    const before = stack.pages.posted.length;
    await page.locator('#send').click();
    await widgetIn(page).getByText('Complete the human verification first.').waitFor();
    expect(await answerBox(page).evaluate((el) => el === (el.getRootNode() as ShadowRoot).activeElement)).toBe(true);
    expect(stack.pages.posted.length).toBe(before);
    await page.close();
  });

  it('expired tokens: managed fetches a new one, explicit reports it and asks again (page clock moved on)', async () => {
    const page = await browser.newPage(contextOptions());
    await page.clock.install();
    const html = sitePage(
      stack.server.url,
      `<div id="m" data-sitekey="${TEST_SITEKEYS.pass}" ${callbacks}></div>
       <div id="x" data-sitekey="${TEST_SITEKEYS.pass}" data-mode="explicit" data-callback="onToken" data-expired-callback="onExpired"></div>`,
    );
    await page.goto(stack.pages.page('/expiry', html));
    await page.locator('#m').getByRole('checkbox', { name: 'Verify you are human' }).click();
    await widgetIn(page, '#m').getByText('Success! You are verified.').waitFor();
    await page.locator('#x').getByRole('textbox').fill('TEXT');
    await page.locator('#x').getByRole('button', { name: 'Check' }).click();
    await widgetIn(page, '#x').getByText('Success! You are verified.').waitFor();
    const tokens = ((await events(page)) as [string, string][]).map(([, t]) => t);
    expect(tokens).toHaveLength(2);

    // Tokens live 300 s; the widget lets go of them 10 s early.
    await page.clock.fastForward(291_000);
    await page.waitForFunction(
      () => (window as unknown as { events: string[][] }).events.filter(([k]) => k === 'token').length === 3,
    );
    const after = (await events(page)) as [string, string?][];
    expect(after.filter(([k]) => k === 'expired')).toHaveLength(2);
    const fresh = after.at(-1)![1]!;
    expect(after.at(-1)![0]).toBe('token');
    expect(tokens).not.toContain(fresh);
    expect(await page.locator('#m input[name=ac-response]').inputValue()).toBe(fresh);

    // The image challenge cannot renew itself: its field is emptied and the visitor is asked.
    expect(await page.locator('#x input[name=ac-response]').inputValue()).toBe('');
    const x = widgetIn(page, '#x');
    await x.getByText('Verification expired. Verify again.').waitFor();
    await shoot(page, x, 'expired');
    await page.locator('#x').getByRole('checkbox', { name: 'Verify again' }).click();
    await page.locator('#x').getByRole('textbox').waitFor();
    await page.close();
  });

  it('a page on an origin the site did not register is refused, and the widget says so', async () => {
    // The service answers 403 without CORS headers, so the page sees a failed fetch.
    const direct = await request(`${stack.server.url}/api/v2/challenges`, {
      method: 'POST',
      headers: { Origin: stack.pages.origin },
      json: { sitekey: stack.elsewhere.sitekey },
    });
    expect(direct.status).toBe(403);
    expect(direct.headers.get('access-control-allow-origin')).toBeNull();

    const page = await browser.newPage(contextOptions());
    const failed = page.waitForEvent('requestfailed', (r) => r.url().endsWith('/api/v2/challenges'));
    await page.goto(
      stack.pages.page(
        '/unregistered',
        sitePage(stack.server.url, `<div data-sitekey="${stack.elsewhere.sitekey}" ${callbacks}></div>`),
      ),
    );
    await page.getByRole('checkbox', { name: 'Verify you are human' }).click();
    await failed;
    const widget = widgetIn(page);
    await widget.getByText('This website is not allowed to use this verification service.').waitFor();
    expect(await events(page)).toEqual([['error', 'forbidden']]);
    expect(await page.locator('input[name=ac-response]').inputValue()).toBe('');
    await shoot(page, widget, 'error-forbidden');
    await page.close();
  });

  it('keyboard only: tab to the widget, solve the challenge, tab on and send', async () => {
    const page = await browser.newPage(contextOptions());
    await page.goto(
      stack.pages.page(
        '/keyboard',
        sitePage(stack.server.url, `<div data-sitekey="${TEST_SITEKEYS.interactive}"></div>`),
      ),
    );
    await page.getByRole('checkbox', { name: 'Verify you are human' }).waitFor();
    await page.keyboard.press('Tab'); // the name field
    await page.keyboard.type('Grace');
    await page.keyboard.press('Tab'); // the widget's button
    const focused = () =>
      page.evaluate(() => {
        let el = document.activeElement;
        while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
        return { text: el?.textContent ?? '', tag: el?.tagName, outline: el ? getComputedStyle(el).outlineStyle : '' };
      });
    expect(await focused()).toMatchObject({ tag: 'BUTTON', text: 'Verify you are human', outline: 'solid' });
    await shoot(page, widgetIn(page), 'managed-focus');
    await page.keyboard.press('Enter');
    await answerBox(page).waitFor();
    await page.waitForFunction(
      () => document.querySelector('.auditcaptcha-widget')!.shadowRoot!.activeElement?.tagName === 'INPUT',
    );
    await page.keyboard.type('TEXT');
    await page.keyboard.press('Enter');
    await widgetIn(page).getByText('Success! You are verified.').waitFor();
    expect((await focused()).text).toBe('Verified'); // focus stays in the widget
    await page.keyboard.press('Tab');
    expect((await focused()).tag).toBe('BUTTON');
    expect((await focused()).text).toBe('Send');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Received' }).waitFor();
    expect(stack.pages.posted.at(-1)!.fields).toMatchObject({
      name: 'Grace',
      'ac-response': expect.stringMatching(/^[A-Za-z0-9_-]{40,}$/),
    });
    await page.close();
  });

  it('rate limits and a vanished challenge get their own messages', async () => {
    const page = await browser.newPage(contextOptions());
    await page.goto(
      stack.pages.page(
        '/limits',
        sitePage(
          stack.server.url,
          `<div data-sitekey="${TEST_SITEKEYS.pass}" data-mode="explicit" ${callbacks}></div>`,
        ),
      ),
    );
    await answerBox(page).waitFor();
    const widget = widgetIn(page);
    let answer: 'limit' | 'gone' = 'limit';
    await page.route('**/api/v1/challenges/*/verify', (route) =>
      answer === 'limit'
        ? route.fulfill({
            status: 429,
            contentType: 'application/json',
            headers: {
              'Access-Control-Allow-Origin': '*',
              'Access-Control-Expose-Headers': 'Retry-After',
              'Retry-After': '2',
            },
            body: JSON.stringify({ message: 'Too many requests; retry in 2 s.', status: 429 }),
          })
        : route.fulfill({
            status: 404,
            contentType: 'application/json',
            headers: { 'Access-Control-Allow-Origin': '*' },
            body: '{"message":"Challenge not found.","status":404}',
          }),
    );
    await answerBox(page).fill('TEXT');
    await answerBox(page).press('Enter');
    await widget.getByText('Too many attempts. Try again in 2 seconds.').waitFor();
    expect(await page.getByRole('button', { name: 'Check' }).getAttribute('aria-disabled')).toBe('true');
    await shoot(page, widget, 'rate-limited');
    await widget.getByText('You can try again now.').waitFor({ timeout: 5000 });
    expect(await page.getByRole('button', { name: 'Check' }).getAttribute('aria-disabled')).toBe('false');

    answer = 'gone';
    const old = await imageSrc(page);
    await answerBox(page).press('Enter');
    await widget.getByText('The challenge expired. Here is a new one.').waitFor();
    expect(await imageSrc(page)).not.toBe(old);
    expect(await events(page)).toEqual([['error', 'rate-limited']]);
    await page.close();
  });

  it('explicit API: render, getResponse, reset, remove, and execute for a score token', async () => {
    const page = await browser.newPage(contextOptions());
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>API</title>
<script>window.loaded=false;function ready(){window.loaded=true}</script>
<script src="${stack.server.url}/widget.js?render=explicit&onload=ready" async></script></head>
<body><form><div id="box" data-sitekey="${TEST_SITEKEYS.pass}"></div></form><div id="other"></div></body></html>`;
    await page.goto(stack.pages.page('/api', html));
    await page.waitForFunction(() => (window as unknown as { loaded: boolean }).loaded);
    // render=explicit: the data-sitekey element was left alone.
    expect(await page.locator('.auditcaptcha-widget').count()).toBe(0);
    const id = await page.evaluate(() => {
      const w = window as unknown as { got: string[] };
      w.got = [];
      return window.auditcaptcha!.render('#box', {
        sitekey: '1x00000000000000000000AA',
        callback: (t: string) => w.got.push(t),
      });
    });
    await page.getByRole('checkbox', { name: 'Verify you are human' }).click();
    await page.getByText('Success! You are verified.').waitFor();
    const token = await page.evaluate((id) => window.auditcaptcha!.getResponse(id), id);
    expect(token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(await page.evaluate(() => (window as unknown as { got: string[] }).got)).toEqual([token]);

    await page.evaluate((id) => window.auditcaptcha!.reset(id), id);
    expect(await page.evaluate((id) => window.auditcaptcha!.getResponse(id), id)).toBeUndefined();
    expect(await page.locator('input[name=ac-response]').inputValue()).toBe('');
    await page.getByRole('checkbox', { name: 'Verify you are human' }).waitFor();

    // execute on a managed widget runs its flow and resolves with the token.
    const again = await page.evaluate((id) => window.auditcaptcha!.execute(id), id);
    expect(again).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(again).not.toBe(token);

    await page.evaluate((id) => window.auditcaptcha!.remove(id), id);
    expect(await page.locator('.auditcaptcha-widget').count()).toBe(0);
    expect(await page.locator('input[name=ac-response]').count()).toBe(0);

    // v3 without any widget on the page.
    const score = await page.evaluate(
      (sitekey) => window.auditcaptcha!.execute(sitekey, { action: 'login' }),
      TEST_SITEKEYS.pass,
    );
    expect(score).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    await page.close();
  });

  it('without the image: a longer proof of work, announced, instead of the answer (real site)', async () => {
    const page = await browser.newPage(contextOptions());
    await page.goto(
      stack.pages.page(
        '/no-image',
        sitePage(
          stack.server.url,
          `<div data-sitekey="${stack.site.sitekey}" data-mode="explicit" ${callbacks}></div>`,
        ),
      ),
    );
    const widget = widgetIn(page);
    const other = page.getByRole('button', { name: 'Cannot see the image? Verify without it' });
    await other.waitFor();
    await page.waitForFunction(() =>
      document.querySelector('.auditcaptcha-widget')!.shadowRoot!.querySelector('img')!.src.startsWith('blob:'),
    );
    const proved = page.waitForResponse((r) => /\/api\/v1\/challenges\/[^/]+\/verify$/.test(r.url()), {
      timeout: 90_000,
    });
    await other.click();
    await widget.getByText(/Verifying without the image/).waitFor();
    expect(await widget.getByRole('status').textContent()).toMatch(/longer check/);
    const body = new URLSearchParams((await proved).request().postData() ?? '');
    expect(body.get('no_image')).toBe('true');
    expect(body.get('answer')).toBeNull();
    await widget.getByText('Success! You are verified.').waitFor({ timeout: 90_000 });
    const [[kind, token]] = (await events(page)) as [string, string][];
    expect(kind).toBe('token');
    const verdict = await request(`${stack.server.url}/api/v1/siteverify`, {
      method: 'POST',
      json: { secret: stack.site.secret, response: token },
    });
    // The browser answered the environment proof on this path too; headless Chromium as
    // launched (navigator.webdriver) stays below the site's default minimum all the same.
    expect(verdict.body).toMatchObject({ success: false, kind: 'v1' });
    expect(verdict.body.reasons).toEqual(expect.arrayContaining(['layout_engine', 'webdriver', 'below_site_minimum']));
    await page.close();
  }, 120_000);

  it('execute for a score token on a real site does the work in workers', async () => {
    const page = await browser.newPage(contextOptions());
    await page.goto(stack.pages.page('/v3-real', sitePage(stack.server.url, '<div id="nothing"></div>')));
    await page.waitForFunction(() => !!window.auditcaptcha);
    const token = await page.evaluate(
      (sitekey) => window.auditcaptcha!.execute(sitekey, { action: 'login' }),
      stack.site.sitekey,
    );
    const verdict = await request(`${stack.server.url}/api/v1/siteverify`, {
      method: 'POST',
      json: { secret: stack.site.secret, response: token },
    });
    // Headless Chromium as launched: navigator.webdriver and the HeadlessChrome User-Agent, so
    // below the site's default minimum, though its engine answered the environment proof.
    expect(verdict.body).toMatchObject({ success: false, kind: 'v3' });
    expect(verdict.body.score).toBeLessThanOrEqual(0.3);
    expect(verdict.body.reasons).toEqual(expect.arrayContaining(['layout_engine', 'below_site_minimum']));
    await page.close();
  }, 90_000);

  it('honours prefers-reduced-motion: no spinning while it works', async () => {
    const page = await browser.newPage({ ...contextOptions(), reducedMotion: 'reduce' });
    await page.route('**/api/v2/challenges', () => {}); // never answered: the widget stays busy
    await page.goto(
      stack.pages.page('/motion', sitePage(stack.server.url, `<div data-sitekey="${TEST_SITEKEYS.pass}"></div>`)),
    );
    await page.getByRole('checkbox', { name: 'Verify you are human' }).click();
    await page.getByRole('checkbox', { name: 'Verifying…' }).waitFor();
    const animation = () =>
      page.evaluate(
        () =>
          getComputedStyle(document.querySelector('.auditcaptcha-widget')!.shadowRoot!.querySelector('.mark')!)
            .animationName,
      );
    expect(await animation()).toBe('none');
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    expect(await animation()).toBe('spin');
    await page.close();
  });
});
