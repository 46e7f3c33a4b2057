/**
 * Pages written as in Google reCAPTCHA's documentation (v2 checkbox, explicit rendering with
 * callbacks, invisible button binding, v3 and Enterprise with an action), changed only in
 * the script's host and the keys, in Chromium against /recaptcha/api.js.
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

describe.skipIf(skipE2e)('reCAPTCHA pages on /recaptcha/api.js', () => {
  let c: CompatStack;
  beforeAll(async () => {
    c = await openCompatStack();
  });
  afterAll(async () => c?.close());

  it('v2 checkbox: .g-recaptcha is a box the visitor ticks; the unchanged form posts g-recaptcha-response', async () => {
    const html = `<html>
  <head>
    <title>reCAPTCHA demo: Simple page</title>
    <script src="${c.host}/recaptcha/api.js" async defer></script>
  </head>
  <body>
    <form action="/submit" method="POST">
      <div class="g-recaptcha" data-sitekey="${c.site.sitekey}"></div>
      <br/>
      <input type="submit" value="Submit">
    </form>
  </body>
</html>`;
    const { page, context, answered } = await visitorPage(c, '/rc-checkbox', html);
    const box = page.getByRole('checkbox', { name: 'Verify you are human' });
    await box.waitFor();
    // The box waits for the visitor, as reCAPTCHA's checkbox does.
    expect(await page.evaluate(() => window.grecaptcha!.getResponse())).toBe('');
    expect(await page.locator('textarea#g-recaptcha-response').count()).toBe(1);
    await lingerOnPage(page);
    await box.click();
    await page.waitForFunction(() => window.grecaptcha!.getResponse() !== '', undefined, { timeout: 60_000 });
    const token = await page.evaluate(() => window.grecaptcha!.getResponse(0));
    // The box gave this automated browser the image, and the token came from its answer.
    expect(answered).toHaveLength(1);
    expect(await field(page, 'g-recaptcha-response')).toBe(token);
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('heading', { name: 'Received' }).waitFor();
    expect(c.stack.pages.posted.at(-1)!.fields['g-recaptcha-response']).toBe(token);
    const verdict = await verifiesOnce(c, '/recaptcha/api/siteverify', token);
    expect(verdict).not.toHaveProperty('score');
    expect(verdict).not.toHaveProperty('cdata');
    await context.close();
  }, 90_000);

  it('explicit: ?onload=&render=explicit, grecaptcha.render with an element id or an element returns numbers; callbacks fire', async () => {
    const html = `<html>
  <head>
    <title>reCAPTCHA demo: Explicit render for multiple widgets</title>
    <script type="text/javascript">
      window.got = [];
      var verifyCallback = function(response) { got.push(['token', response]); };
      var widgetId1;
      var widgetId2;
      var onloadCallback = function() {
        widgetId1 = grecaptcha.render('example1', { 'sitekey' : '${c.site.sitekey}', 'theme' : 'light' });
        widgetId2 = grecaptcha.render(document.getElementById('example2'), {
          'sitekey' : '${c.site.sitekey}',
          'callback' : verifyCallback,
          'expired-callback' : function() { got.push(['expired']); },
          'error-callback' : function() { got.push(['error']); },
          'theme' : 'dark',
          'tabindex' : 3,
          'isolated' : false
        });
      };
    </script>
  </head>
  <body>
    <form action="/submit" method="POST"><div id="example1"></div><br><input type="submit" value="getResponse"></form>
    <form action="/submit" method="POST"><div id="example2"></div><br><input type="submit" value="Submit"></form>
    <script src="${c.host}/recaptcha/api.js?onload=onloadCallback&render=explicit" async defer></script>
  </body>
</html>`;
    const { page, context } = await visitorPage(c, '/rc-explicit', html);
    await page.waitForFunction(() => (window as unknown as { widgetId2?: number }).widgetId2 !== undefined);
    expect(
      await page.evaluate(() => [
        (window as unknown as { widgetId1: number }).widgetId1,
        (window as unknown as { widgetId2: number }).widgetId2,
      ]),
    ).toEqual([0, 1]);
    expect(
      await page.locator('textarea[name=g-recaptcha-response]').evaluateAll((els) => els.map((e) => e.id)),
    ).toEqual(['g-recaptcha-response', 'g-recaptcha-response-1']);
    await lingerOnPage(page);
    await page.locator('#example2').getByRole('checkbox', { name: 'Verify you are human' }).click();
    const [[, token]] = (await waitForGot(page)) as [string, string][];
    expect(await page.evaluate(() => window.grecaptcha!.getResponse(1))).toBe(token);
    expect(await page.evaluate(() => window.grecaptcha!.getResponse(0))).toBe('');
    await verifiesOnce(c, '/recaptcha/api/siteverify', token);
    await page.evaluate(() => window.grecaptcha!.reset(1));
    expect(await page.evaluate(() => window.grecaptcha!.getResponse(1))).toBe('');
    expect(await page.locator('#g-recaptcha-response-1').inputValue()).toBe('');
    await context.close();
  }, 90_000);

  it('invisible: <button class="g-recaptcha" data-callback data-action> runs on click, unwrapped; the callback submits the form', async () => {
    const html = `<html>
  <head>
    <script src="${c.host}/recaptcha/api.js" async defer></script>
    <script>
      function onSubmit(token) {
        document.getElementById("demo-form").submit();
      }
    </script>
  </head>
  <body>
    <form id="demo-form" action="/submit" method="POST">
      <input name="email" value="ada@example.com">
      <button class="g-recaptcha" data-sitekey="${c.site.sitekey}" data-callback='onSubmit' data-action='submit'>Submit</button>
    </form>
  </body>
</html>`;
    const { page, context } = await visitorPage(c, '/rc-button', html);
    await lingerOnPage(page);
    const before = c.stack.pages.posted.length;
    const button = page.getByRole('button', { name: 'Submit' });
    // The button keeps its place: it is still the form's own child, not wrapped.
    expect(await button.evaluate((b) => b.parentElement!.id)).toBe('demo-form');
    await button.click();
    await page.getByRole('heading', { name: 'Received' }).waitFor();
    expect(c.stack.pages.posted.length).toBe(before + 1);
    const fields = c.stack.pages.posted.at(-1)!.fields;
    expect(fields.email).toBe('ada@example.com');
    const verdict = await verifiesOnce(c, '/recaptcha/api/siteverify', fields['g-recaptcha-response']);
    expect(verdict.action).toBe('submit');
    expect(typeof verdict.score).toBe('number');
    await context.close();
  }, 90_000);

  it('v3: ?render=<sitekey> and grecaptcha.execute(sitekey, {action}) give a promise of a score token', async () => {
    const html = `<html>
  <head>
    <script src="${c.host}/recaptcha/api.js?render=${c.site.sitekey}"></script>
    <script>
      window.got = [];
      function onClick(e) {
        e.preventDefault();
        grecaptcha.ready(function() {
          grecaptcha.execute('${c.site.sitekey}', {action: 'submit'}).then(function(token) {
            got.push(['token', token]);
          });
        });
      }
    </script>
  </head>
  <body><button id="go" onclick="onClick(event)">Send</button></body>
</html>`;
    const { page, context } = await visitorPage(c, '/rc-v3', html);
    await lingerOnPage(page);
    await page.locator('#go').click();
    const [[, token]] = (await waitForGot(page)) as [string, string][];
    const verdict = await verifiesOnce(c, '/recaptcha/api/siteverify', token);
    expect(verdict).toMatchObject({ action: 'submit' });
    // A score, and the one Chromium driven over the DevTools protocol earns.
    expect(verdict.score).toBeLessThanOrEqual(0.3);
    await context.close();
  }, 90_000);

  it('Enterprise: /recaptcha/enterprise.js and grecaptcha.enterprise.execute; the test keys pass at the test secret', async () => {
    const html = `<html>
  <head>
    <script src="${c.host}/recaptcha/enterprise.js?render=${c.site.sitekey}"></script>
    <script>
      window.got = [];
      function run() {
        grecaptcha.enterprise.ready(async () => {
          const token = await grecaptcha.enterprise.execute('${c.site.sitekey}', {action: 'LOGIN'});
          got.push(['token', token]);
          got.push(['test', await grecaptcha.execute('${TEST_SITEKEYS.recaptcha}', {action: 'homepage'})]);
        });
      }
    </script>
  </head>
  <body><button id="go" onclick="run()">Log in</button></body>
</html>`;
    const { page, context } = await visitorPage(c, '/rc-enterprise', html);
    await lingerOnPage(page);
    await page.locator('#go').click();
    const [[, token], [, testToken]] = (await waitForGot(page, 2)) as [string, string][];
    expect((await verifiesOnce(c, '/recaptcha/api/siteverify', token)).action).toBe('LOGIN');
    expect(
      await siteverify(c, '/recaptcha/api/siteverify', { secret: TEST_SECRETS.recaptcha, response: testToken }),
    ).toMatchObject({ success: true, action: 'homepage', score: 0.9 });
    expect(
      (await siteverify(c, '/recaptcha/api/siteverify', { secret: TEST_SECRETS.recaptcha, response: token }))[
        'error-codes'
      ],
    ).toEqual(['invalid-input-response']);
    await context.close();
  }, 90_000);
});
