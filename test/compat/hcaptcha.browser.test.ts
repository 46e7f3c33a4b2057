/**
 * Pages written as in hCaptcha's documentation (implicit, explicit with callbacks,
 * invisible with execute), changed only in the script's host and the keys, and the
 * @hcaptcha/react-hcaptcha wrapper, unchanged, pointed at the service with its `apihost`
 * option; in Chromium against /1/api.js.
 */
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DUMMY_TOKENS, TEST_SECRETS, TEST_SITEKEYS } from '../helpers/test-keys.ts';
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

const root = path.resolve(import.meta.dirname, '../..');

describe.skipIf(skipE2e)('hCaptcha pages on /1/api.js', () => {
  let c: CompatStack;
  beforeAll(async () => {
    c = await openCompatStack();
  });
  afterAll(async () => c?.close());

  it('implicit: .h-captcha, the visitor ticks it; the form posts h-captcha-response and g-recaptcha-response', async () => {
    const html = `<html>
  <head>
    <title>hCaptcha Demo</title>
    <script src="${c.host}/1/api.js" async defer></script>
  </head>
  <body>
    <form action="/submit" method="POST">
      <input type="text" name="email" placeholder="Email" value="ada@example.com" />
      <input type="password" name="password" placeholder="Password" value="pw" />
      <div class="h-captcha" data-sitekey="${c.site.sitekey}"></div>
      <br />
      <input type="submit" value="Submit" />
    </form>
  </body>
</html>`;
    const { page, context, answered } = await visitorPage(c, '/hc-implicit', html);
    const box = page.getByRole('checkbox', { name: 'Verify you are human' });
    await box.waitFor();
    await lingerOnPage(page);
    await box.click();
    await page.waitForFunction(() => window.hcaptcha!.getResponse() !== '', undefined, { timeout: 60_000 });
    const token = await page.evaluate(() => window.hcaptcha!.getResponse());
    // The box gave this automated browser the image, and the token came from its answer.
    expect(answered).toHaveLength(1);
    expect(await field(page, 'h-captcha-response')).toBe(token);
    expect(await field(page, 'g-recaptcha-response')).toBe(token);
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('heading', { name: 'Received' }).waitFor();
    expect(c.stack.pages.posted.at(-1)!.fields).toMatchObject({
      email: 'ada@example.com',
      'h-captcha-response': token,
      'g-recaptcha-response': token,
    });
    const verdict = await verifiesOnce(c, '/siteverify', token);
    expect(verdict).toMatchObject({ success: true, credit: false });
    await context.close();
  }, 90_000);

  it('explicit: ?onload=&render=explicit, hcaptcha.render with callbacks; execute({async: true}) on an invisible widget', async () => {
    const html = `<html>
  <head>
    <script type="text/javascript">
      window.got = [];
      var yourFunction = function () {
        window.visibleId = hcaptcha.render('captcha-1', {
          sitekey: '${c.site.sitekey}',
          theme: 'dark',
          callback: function (token) { got.push(['visible', token]); },
          'expired-callback': function () { got.push(['expired']); },
          'chalexpired-callback': function () {},
          'open-callback': function () {},
          'close-callback': function () {},
          'error-callback': function (err) { got.push(['error', err]); },
        });
        window.invisibleId = hcaptcha.render(document.getElementById('captcha-2'), { sitekey: '${c.site.sitekey}', size: 'invisible' });
      };
      async function sendForm() {
        const { response, key } = await hcaptcha.execute(window.invisibleId, { async: true });
        got.push(['invisible', response, key]);
      }
    </script>
    <script src="${c.host}/1/api.js?onload=yourFunction&render=explicit&recaptchacompat=off&hl=en" async defer></script>
  </head>
  <body>
    <form action="/submit" method="POST"><div id="captcha-1"></div></form>
    <form action="/submit" method="POST"><div id="captcha-2"></div><button type="button" id="send" onclick="sendForm()">Send</button></form>
  </body>
</html>`;
    const { page, context } = await visitorPage(c, '/hc-explicit', html);
    await page.waitForFunction(() => typeof (window as unknown as { invisibleId?: string }).invisibleId === 'string');
    // recaptchacompat=off: no grecaptcha.
    expect(await page.evaluate(() => typeof window.grecaptcha)).toBe('undefined');
    await lingerOnPage(page);
    await page.locator('#captcha-1').getByRole('checkbox', { name: 'Verify you are human' }).click();
    const [[, visible]] = (await waitForGot(page)) as [string, string][];
    await page.locator('#send').click();
    const entries = (await waitForGot(page, 2)) as [string, string, string][];
    const invisible = entries.find((e) => e[0] === 'invisible')![1];
    expect(
      await page.evaluate(() =>
        window.hcaptcha!.getResponse((window as unknown as { invisibleId: string }).invisibleId),
      ),
    ).toBe(invisible);
    await verifiesOnce(c, '/siteverify', visible);
    // The same token is good once, whichever protocol asks.
    const verdict = await verifiesOnce(c, '/turnstile/v0/siteverify', invisible);
    expect(typeof verdict.score).toBe('number');
    await context.close();
  }, 90_000);

  it('invisible button: <button class="h-captcha" data-callback> runs on click; also answers as grecaptcha', async () => {
    const html = `<html>
  <head>
    <script src="${c.host}/1/api.js" async defer></script>
    <script>function onSubmit(token) { document.getElementById('hc-form').submit(); }</script>
  </head>
  <body>
    <form id="hc-form" action="/submit" method="POST">
      <input name="comment" value="hello">
      <button class="h-captcha" data-sitekey="${c.site.sitekey}" data-callback="onSubmit">Submit</button>
    </form>
  </body>
</html>`;
    const { page, context } = await visitorPage(c, '/hc-button', html);
    await lingerOnPage(page);
    expect(await page.evaluate(() => typeof window.grecaptcha?.render)).toBe('function');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('heading', { name: 'Received' }).waitFor();
    const fields = c.stack.pages.posted.at(-1)!.fields;
    expect(fields.comment).toBe('hello');
    expect(fields['g-recaptcha-response']).toBe(fields['h-captcha-response']);
    await verifiesOnce(c, '/siteverify', fields['h-captcha-response']);
    await context.close();
  }, 90_000);

  it('test keys: the hCaptcha test sitekey yields a token the test secret accepts, as it does the published passcode', async () => {
    const html = `<html><head><script src="${c.host}/1/api.js" async defer></script>
<script>window.got = []; function onVerify(t) { got.push(['token', t]); }</script></head>
<body><form action="/submit" method="POST"><div class="h-captcha" data-sitekey="${TEST_SITEKEYS.hcaptcha}" data-callback="onVerify"></div></form></body></html>`;
    const { page, context } = await visitorPage(c, '/hc-test-keys', html);
    await page.getByRole('checkbox', { name: 'Verify you are human' }).click();
    const [[, token]] = (await waitForGot(page)) as [string, string][];
    expect(await siteverify(c, '/siteverify', { secret: TEST_SECRETS.hcaptcha, response: token })).toMatchObject({
      success: true,
    });
    expect(
      await siteverify(c, '/siteverify', { secret: TEST_SECRETS.hcaptcha, response: DUMMY_TOKENS.hcaptcha }),
    ).toMatchObject({ success: true });
    expect((await siteverify(c, '/siteverify', { secret: c.site.secret, response: token }))['error-codes']).toEqual([
      'invalid-input-response',
    ]);
    await context.close();
  }, 90_000);

  it('@hcaptcha/react-hcaptcha, unchanged, with apihost pointing at the service', async () => {
    // The wrapper as an app bundles it: React, react-dom and the component, built by esbuild.
    const app = `
      import React from 'react';
      import { createRoot } from 'react-dom/client';
      import HCaptcha from '@hcaptcha/react-hcaptcha';
      window.got = [];
      function App() {
        const ref = React.useRef(null);
        return React.createElement('form', { action: '/submit', method: 'POST' },
          React.createElement(HCaptcha, {
            sitekey: window.SITEKEY,
            apihost: window.APIHOST,
            sentry: false,
            ref,
            onLoad: () => got.push(['load']),
            onVerify: (token, ekey) => got.push(['verify', token, ekey]),
            onError: (err) => got.push(['error', err]),
          }),
          React.createElement('button', { type: 'button', id: 'exec', onClick: async () => {
            const { response } = await ref.current.execute({ async: true });
            got.push(['execute', response]);
          } }, 'Check'));
      }
      createRoot(document.getElementById('root')).render(React.createElement(App));
    `;
    const bundled = await build({
      stdin: { contents: app, resolveDir: root, loader: 'js' },
      bundle: true,
      write: false,
      format: 'iife',
      minify: true,
      define: { 'process.env.NODE_ENV': '"production"' },
      logLevel: 'silent',
    });
    const html = `<!doctype html><html><head><meta charset="utf-8"><title>React app</title>
<script>window.SITEKEY = ${JSON.stringify(c.site.sitekey)}; window.APIHOST = ${JSON.stringify(c.host)};</script></head>
<body><div id="root"></div><script>${bundled.outputFiles[0].text.replace(/<\/script/gi, '<\\/script')}</script></body></html>`;
    const { page, context } = await visitorPage(c, '/hc-react', html);
    await waitForGot(page);
    // The loader removes its script element once loaded; the resource timing entry stays.
    const src = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((e) => e.name)
        .find((n) => n.includes('/1/api.js'))!,
    );
    expect(src.startsWith(`${c.host}/1/api.js?`)).toBe(true);
    expect(new URL(src).searchParams.get('render')).toBe('explicit');
    await lingerOnPage(page);
    await page.locator('#exec').click();
    const entries = (await waitForGot(page, 3)) as string[][];
    const verified = entries.find((e) => e[0] === 'verify')!;
    const executed = entries.find((e) => e[0] === 'execute')!;
    expect(executed[1]).toBe(verified[1]);
    expect(await field(page, 'h-captcha-response')).toBe(verified[1]);
    await verifiesOnce(c, '/siteverify', verified[1]);
    await context.close();
  }, 90_000);
});
