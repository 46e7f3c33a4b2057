/**
 * What a keyboard and a screen reader get from the widget, in real Chromium against the real
 * service: a challenge solved with keys only (Tab, Space, typing, Enter), the roles and names
 * Chromium's accessibility tree exposes in each state (Playwright's aria snapshots), what the
 * live region announces, and the language chosen from data-language, `hl`, or `<html lang>`.
 * Test sitekeys keep the flows short: the test is about the widget, not the work.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
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

/** The innermost focused element, through open shadow roots: its role and accessible name. */
const focused = (page: Page) =>
  page.evaluate(() => {
    let el = document.activeElement;
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
    return { tag: el?.tagName, role: el?.getAttribute('role') ?? '', text: el?.textContent?.trim() ?? '' };
  });

/**
 * Starts recording what the widget's live region says (each distinct text, in order); the
 * recording is read with `announced`.
 */
async function listen(page: Page, container = '[data-sitekey]'): Promise<void> {
  await page.locator(`${container} .auditcaptcha-widget`).waitFor({ state: 'attached' });
  await page.evaluate((sel) => {
    const status = document.querySelector(`${sel} .auditcaptcha-widget`)!.shadowRoot!.querySelector('[role=status]')!;
    const said: string[] = [];
    (window as unknown as { said: string[] }).said = said;
    new MutationObserver(() => {
      const text = status.textContent ?? '';
      if (text && text !== said.at(-1)) said.push(text);
    }).observe(status, { childList: true, characterData: true, subtree: true });
  }, container);
}
const announced = (page: Page) => page.evaluate(() => (window as unknown as { said: string[] }).said);

describe.skipIf(skipE2e)('keyboard and screen readers, in Chromium', () => {
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

  const open = async (name: string, widget: string, lang = 'en') => {
    const page = await browser.newPage(contextOptions());
    const html = sitePage(stack.server.url, widget).replace('<html lang="en">', `<html lang="${lang}">`);
    await page.goto(stack.pages.page(`/sr-${name}`, html));
    return page;
  };

  it('solves the image path with the keyboard alone; every control has its role and name', async () => {
    const page = await open('keyboard', `<div data-sitekey="${TEST_SITEKEYS.interactive}"></div>`);
    const widget = widgetIn(page);
    await page.getByRole('checkbox', { name: 'Verify you are human' }).waitFor();
    await listen(page);
    expect(await widget.ariaSnapshot()).toBe(
      ['- group "Human verification":', '  - checkbox "Verify you are human"', '  - status'].join('\n'),
    );

    await page.keyboard.press('Tab'); // the name field
    await page.keyboard.type('Grace');
    await page.keyboard.press('Tab'); // the widget
    expect(await focused(page)).toMatchObject({ role: 'checkbox', text: 'Verify you are human' });
    await page.keyboard.press('Space');

    // The image path: focus moves to the labelled answer field.
    const answer = page.getByRole('textbox', { name: 'Type the characters shown in the image' });
    await answer.waitFor();
    await page.waitForFunction(
      () => document.querySelector('.auditcaptcha-widget')!.shadowRoot!.activeElement?.tagName === 'INPUT',
      undefined,
      { timeout: 10_000 },
    );
    expect(await widget.ariaSnapshot()).toBe(
      [
        '- group "Human verification":',
        '  - text: Type the characters shown in the image',
        '  - img "Distorted characters to type. If you cannot read them, choose New image."',
        '  - button "New image"',
        '  - textbox "Type the characters shown in the image"',
        '  - button "Check"',
        '  - status: Type the characters shown in the image',
      ].join('\n'),
    );

    await page.keyboard.type('WRONG');
    await page.keyboard.press('Enter');
    await widget
      .getByRole('status')
      .getByText(/That was not right/)
      .waitFor();
    expect(await focused(page)).toMatchObject({ tag: 'INPUT' });
    await page.keyboard.type('TEXT');
    await page.keyboard.press('Enter');
    await widget.getByText('Success! You are verified.').waitFor();
    expect(await widget.ariaSnapshot()).toBe(
      [
        '- group "Human verification":',
        '  - checkbox "Verified" [checked] [disabled]',
        '  - status: Success! You are verified.',
      ].join('\n'),
    );
    expect(await focused(page)).toMatchObject({ role: 'checkbox', text: 'Verified' });
    expect(await announced(page)).toEqual([
      'Verifying…',
      'Type the characters shown in the image',
      'Verifying…',
      'That was not right. Attempts left: 2. Try again or choose New image.',
      'Verifying…',
      'Success! You are verified.',
    ]);

    await page.keyboard.press('Tab');
    expect(await focused(page)).toMatchObject({ tag: 'BUTTON', text: 'Send' });
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Received' }).waitFor();
    expect(stack.pages.posted.at(-1)!.fields).toMatchObject({
      name: 'Grace',
      'ac-response': expect.stringMatching(/^[A-Za-z0-9_-]{40,}$/),
    });
    await page.close();
  });

  it('the live region announces verifying, success, expiry and errors', async () => {
    const page = await browser.newPage(contextOptions());
    await page.clock.install();
    await page.goto(
      stack.pages.page(
        '/sr-live',
        sitePage(
          stack.server.url,
          `<div id="m" data-sitekey="${TEST_SITEKEYS.pass}"></div>
           <div id="x" data-sitekey="${TEST_SITEKEYS.pass}" data-refresh-expired="manual"></div>`,
        ),
      ),
    );
    await listen(page, '#m');
    await page.locator('#m').getByRole('checkbox', { name: 'Verify you are human' }).press('Enter');
    await widgetIn(page, '#m').getByText('Success! You are verified.').waitFor();
    await page.locator('#x').getByRole('checkbox', { name: 'Verify you are human' }).press('Space');
    await widgetIn(page, '#x').getByText('Success! You are verified.').waitFor();

    // Tokens live 300 s and are let go of 10 s early; managed fetches a new one by itself.
    await page.clock.fastForward(291_000);
    await page.waitForFunction(() => (window as unknown as { said: string[] }).said.length >= 4);
    expect(await announced(page)).toEqual([
      'Verifying…',
      'Success! You are verified.',
      'Verification expired. Verifying again…',
      'Success! You are verified.',
    ]);
    // With manual refresh the visitor is asked, the checkbox unticked.
    const x = widgetIn(page, '#x');
    await x.getByRole('status').getByText('Verification expired. Verify again.').waitFor();
    expect(await x.getByRole('checkbox', { name: 'Verify again' }).getAttribute('aria-checked')).toBe('false');

    await page.route('**/api/v2/challenges', (route) => route.abort('internetdisconnected'));
    await page.route('**/healthz', (route) => route.abort('internetdisconnected'));
    await page.locator('#x').getByRole('checkbox', { name: 'Verify again' }).press('Enter');
    await x
      .getByRole('status')
      .getByText('Could not reach the verification service. Check your connection and try again.')
      .waitFor();
    expect(await x.getByRole('checkbox', { name: 'Try again' }).isVisible()).toBe(true);
    await page.close();
  });

  it('speaks the page language, or the one asked for, and says which', async () => {
    const german = await open('de', `<div data-sitekey="${TEST_SITEKEYS.interactive}"></div>`, 'de-DE');
    const box = german.getByRole('checkbox', { name: 'Bestätigen Sie, dass Sie ein Mensch sind' });
    await box.click();
    await german.getByRole('textbox', { name: 'Geben Sie die Zeichen aus dem Bild ein' }).waitFor();
    const widget = widgetIn(german);
    expect(await widget.getByRole('group').getAttribute('lang')).toBe('de-DE');
    expect(await widget.getByRole('img').getAttribute('alt')).toBe(
      'Verzerrte Zeichen zum Eintippen. Wenn Sie sie nicht lesen können, wählen Sie „Neues Bild“.',
    );
    await german.getByRole('button', { name: 'Neues Bild' }).waitFor();
    await german.close();

    // data-language wins over the page; a language without a translation is English, said so.
    const page = await open(
      'choice',
      `<div id="fr" data-sitekey="${TEST_SITEKEYS.pass}" data-language="fr"></div>
       <div id="ja" data-sitekey="${TEST_SITEKEYS.pass}" data-language="ja"></div>`,
      'de',
    );
    await page.locator('#fr').getByRole('checkbox', { name: 'Vérifiez que vous êtes humain' }).click();
    await widgetIn(page, '#fr').getByRole('status').getByText('Vérification réussie.').waitFor();
    expect(await widgetIn(page, '#fr').getByRole('group').getAttribute('lang')).toBe('fr');
    await page.locator('#ja').getByRole('checkbox', { name: 'Verify you are human' }).waitFor();
    expect(await widgetIn(page, '#ja').getByRole('group').getAttribute('lang')).toBe('en');
    await page.close();
  });

  it("the drop-in scripts take the provider's language parameter", async () => {
    const cases = [
      ['recaptcha', '/recaptcha/api.js?hl=es', `<div class="g-recaptcha" data-sitekey="${TEST_SITEKEYS.recaptcha}">`],
      ['hcaptcha', '/1/api.js?hl=nl', `<div class="h-captcha" data-sitekey="${TEST_SITEKEYS.hcaptcha}">`],
      [
        'turnstile',
        '/turnstile/v0/api.js',
        `<div class="cf-turnstile" data-sitekey="${TEST_SITEKEYS.pass}" data-execution="execute" data-language="de">`,
      ],
    ] as const;
    const names = {
      recaptcha: 'Verifique que es un ser humano',
      hcaptcha: 'Bevestig dat u een mens bent',
      turnstile: 'Bestätigen Sie, dass Sie ein Mensch sind',
    };
    for (const [name, script, markup] of cases) {
      const page = await browser.newPage(contextOptions());
      const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${name}</title>
<script src="${stack.server.url}${script}" async defer></script></head>
<body><form action="/submit" method="post">${markup}</div><button>Send</button></form></body></html>`;
      await page.goto(stack.pages.page(`/sr-${name}`, html));
      await page.getByRole('checkbox', { name: names[name] }).waitFor();
      await page.close();
    }
  });
});
