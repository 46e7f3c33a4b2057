/**
 * Pages written as in Cloudflare Turnstile's documentation (implicit rendering, explicit
 * rendering with callbacks, invisible execution), changed only in the script's host and
 * the keys, in Chromium against /turnstile/v0/api.js.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SECRETS, TEST_SITEKEYS } from '../helpers/test-keys.ts';
import {
  lingerOnPage,
  field,
  openCompatStack,
  visitorPage,
  siteverify,
  skipE2e,
  verifiesOnce,
  waitForGot,
  type CompatStack,
} from './harness.ts';

describe.skipIf(skipE2e)('Turnstile pages on /turnstile/v0/api.js', () => {
  let c: CompatStack;
  beforeAll(async () => {
    c = await openCompatStack();
  });
  afterAll(async () => c?.close());

  it('implicit: .cf-turnstile runs on render, fills cf-turnstile-response, the unchanged form posts it', async () => {
    const html = `<!DOCTYPE html>
<html>
<head>
  <script src="${c.host}/turnstile/v0/api.js" async defer></script>
</head>
<body>
  <form action="/login" method="POST">
    <input type="text" name="username" placeholder="Username" required value="ada" />
    <input type="password" name="password" placeholder="Password" required value="pw" />
    <div class="cf-turnstile" data-sitekey="${c.site.sitekey}" data-theme="light" data-size="normal" data-callback="onSuccess" data-action="login" data-cdata="session-1"></div>
    <button type="submit" value="Submit">Log in</button>
  </form>
  <script>
    window.got = [];
    function onSuccess(token) { got.push(['token', token]); }
  </script>
</body>
</html>`;
    const { page, context } = await visitorPage(c, '/ts-implicit', html);
    // Nobody clicks: Turnstile's default execution runs on render.
    const [[, token]] = (await waitForGot(page)) as [string, string][];
    expect(await field(page, 'cf-turnstile-response')).toBe(token);
    expect(
      await page.locator('form input[type=hidden]').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).name)),
    ).toContain('cf-turnstile-response');
    expect(await page.evaluate(() => window.turnstile!.getResponse())).toBe(token);
    expect(await page.evaluate(() => window.turnstile!.isExpired())).toBe(false);

    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Received' }).waitFor();
    const posted = c.stack.pages.posted.at(-1)!;
    expect(posted.path).toBe('/login');
    expect(posted.fields).toMatchObject({ username: 'ada', 'cf-turnstile-response': token });

    const verdict = await verifiesOnce(c, '/turnstile/v0/siteverify', token);
    expect(verdict).toMatchObject({ action: 'login', cdata: 'session-1', 'error-codes': [] });
    await context.close();
  }, 90_000);

  it('explicit: ?render=explicit&onload=, turnstile.render with kebab-case callbacks, reset and remove', async () => {
    const html = `<!DOCTYPE html>
<html>
<head>
  <script src="${c.host}/turnstile/v0/api.js?render=explicit&onload=onloadTurnstileCallback" defer></script>
</head>
<body>
  <div id="example-container"></div>
  <script>
    window.got = [];
    window.onloadTurnstileCallback = function () {
      window.widgetId = turnstile.render("#example-container", {
        sitekey: "${c.site.sitekey}",
        action: "signup",
        cData: "cart-9",
        theme: "dark",
        language: "en",
        retry: "auto",
        "retry-interval": 8000,
        "refresh-expired": "auto",
        "feedback-enabled": false,
        callback: function (token) { got.push(["token", token]); },
        "error-callback": function (code) { got.push(["error", code]); },
        "expired-callback": function () { got.push(["expired"]); },
        "timeout-callback": function () { got.push(["timeout"]); },
        "before-interactive-callback": function () {},
        "after-interactive-callback": function () {},
        "unsupported-callback": function () {},
      });
    };
  </script>
</body>
</html>`;
    const { page, context } = await visitorPage(c, '/ts-explicit', html);
    const [[kind, token]] = (await waitForGot(page)) as [string, string][];
    expect(kind).toBe('token');
    expect(await page.evaluate(() => typeof (window as unknown as { widgetId: unknown }).widgetId)).toBe('string');
    expect(
      await page.evaluate(() => window.turnstile!.getResponse((window as unknown as { widgetId: string }).widgetId)),
    ).toBe(token);
    // No implicit rendering with render=explicit: the one widget is the one rendered.
    expect(await page.locator('.auditcaptcha-widget').count()).toBe(1);
    const verdict = await verifiesOnce(c, '/turnstile/v0/siteverify', token);
    expect(verdict).toMatchObject({ action: 'signup', cdata: 'cart-9' });

    // reset: the token goes, and (execution on render) a new one comes.
    await page.evaluate(() => window.turnstile!.reset((window as unknown as { widgetId: string }).widgetId));
    const entries = (await waitForGot(page, 2)) as [string, string][];
    expect(entries[1][0]).toBe('token');
    expect(entries[1][1]).not.toBe(token);
    await page.evaluate(() => window.turnstile!.remove());
    expect(await page.locator('.auditcaptcha-widget').count()).toBe(0);
    expect(await page.evaluate(() => window.turnstile!.getResponse())).toBeUndefined();
    await context.close();
  }, 120_000);

  it('invisible: size invisible with execution "execute" runs on turnstile.execute; the reCAPTCHA protocol accepts the token once', async () => {
    const html = `<!DOCTYPE html>
<html>
<head>
  <script src="${c.host}/turnstile/v0/api.js?render=explicit" defer></script>
</head>
<body>
  <form id="f" action="/submit" method="POST"><div id="ts"></div><button id="go" type="button">Go</button></form>
  <script>
    window.got = [];
    document.getElementById("go").addEventListener("click", function () {
      turnstile.ready(function () {
        turnstile.render("#ts", { sitekey: "${c.site.sitekey}", size: "invisible", execution: "execute", appearance: "execute", action: "checkout",
          callback: function (token) { got.push(["token", token]); } });
        turnstile.execute("#ts");
      });
    });
  </script>
</body>
</html>`;
    const { page, context } = await visitorPage(c, '/ts-invisible', html);
    await lingerOnPage(page);
    await page.locator('#go').click();
    const [[, token]] = (await waitForGot(page)) as [string, string][];
    expect(await field(page, 'cf-turnstile-response')).toBe(token);
    const verdict = await verifiesOnce(c, '/recaptcha/api/siteverify', token);
    expect(verdict.action).toBe('checkout');
    expect(typeof verdict.score).toBe('number');
    expect(verdict).not.toHaveProperty('cdata');
    await context.close();
  }, 90_000);

  it('test keys: 1x…AA and the invisible 1x…BB yield tokens the test secret accepts; real secrets refuse them, and the test secrets refuse real tokens', async () => {
    const html = `<!DOCTYPE html><html><head><script src="${c.host}/turnstile/v0/api.js" async defer></script>
<script>window.got = []; function onA(t) { got.push(["AA", t]); } function onB(t) { got.push(["BB", t]); }</script></head>
<body><form action="/submit" method="POST">
<div class="cf-turnstile" data-sitekey="${TEST_SITEKEYS.pass}" data-callback="onA"></div>
<div class="cf-turnstile" data-sitekey="${TEST_SITEKEYS.passInvisible}" data-callback="onB"></div>
</form></body></html>`;
    const { page, context } = await visitorPage(c, '/ts-test-keys', html);
    const tokens = Object.fromEntries((await waitForGot(page, 2)) as [string, string][]);
    for (const token of [tokens.AA, tokens.BB]) {
      expect(
        await siteverify(c, '/turnstile/v0/siteverify', { secret: TEST_SECRETS.pass, response: token }),
      ).toMatchObject({ success: true });
      expect(
        (await siteverify(c, '/turnstile/v0/siteverify', { secret: c.site.secret, response: token }))['error-codes'],
      ).toEqual(['invalid-input-response']);
    }
    // The invisible key shows no box.
    expect(
      await page
        .locator('.cf-turnstile')
        .nth(1)
        .locator('.auditcaptcha-widget')
        .evaluate((el) => el.shadowRoot!.querySelector<HTMLElement>('.box')!.hidden),
    ).toBe(true);
    expect(
      await siteverify(c, '/turnstile/v0/siteverify', { secret: TEST_SECRETS.pass, response: 'XXXX.DUMMY.TOKEN.XXXX' }),
    ).toMatchObject({ success: true });
    expect(
      (
        await siteverify(c, '/turnstile/v0/siteverify', { secret: TEST_SECRETS.pass, response: 'a-real-looking-token' })
      )['error-codes'],
    ).toEqual(['invalid-input-response']);
    expect(
      (
        await siteverify(c, '/turnstile/v0/siteverify', {
          secret: TEST_SECRETS.fail,
          response: 'XXXX.DUMMY.TOKEN.XXXX',
        })
      )['error-codes'],
    ).toEqual(['invalid-input-response']);
    expect(
      (
        await siteverify(c, '/turnstile/v0/siteverify', {
          secret: TEST_SECRETS.spent,
          response: 'XXXX.DUMMY.TOKEN.XXXX',
        })
      )['error-codes'],
    ).toEqual(['timeout-or-duplicate']);
    await context.close();
  }, 90_000);
});
