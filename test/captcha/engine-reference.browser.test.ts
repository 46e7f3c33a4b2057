import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { openTestServices, type TestServices } from '../helpers/services.ts';
import { MAX_PROBE_USES, textValueCount, UNCHECKED } from '../../src/captcha/env-proof.ts';
import { bundleNamed } from '../../src/bundles.ts';

let services: TestServices;
beforeAll(async () => {
  services = await openTestServices({ env: { CAPTCHA_ENGINE: 'auto' } });
});
afterAll(async () => {
  await services?.cleanup();
});

describe('environment proof: reference values from the service’s own Chromium', () => {
  it('lays out fresh paragraphs in a real engine, each handed out once', async () => {
    const reference = services.engineReference!;
    expect(reference).toBeDefined();
    const seen = new Map<string, number>();
    let checked = 0;
    let words = 0;
    let wrapped = 0;
    for (let i = 0; i < 40; i++) {
      const taken = (await reference.take())!;
      expect(taken.values).toHaveLength(textValueCount(taken.probe));
      // Real text layout: lines in order, and paragraphs that wrap.
      const lines = taken.values.filter((v) => v !== UNCHECKED);
      expect(lines).toEqual([...lines].sort((a, b) => a - b));
      if (Math.max(...lines) > 0) wrapped++;
      checked += lines.length;
      words += taken.values.length;
      const key = JSON.stringify(taken.probe);
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    expect(Math.max(...seen.values())).toBeLessThanOrEqual(MAX_PROBE_USES);
    // Most words are far enough from a line's end to be checked.
    expect(checked / words).toBeGreaterThan(0.6);
    expect(wrapped).toBeGreaterThan(30);
  });

  it('a browser measuring the same paragraphs with the widget’s code, on a hostile quirks-mode page at twice the pixel ratio, gets the same values', async () => {
    let browser: Browser | undefined;
    try {
      browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
      const page = await browser.newPage({ viewport: { width: 390, height: 700 }, deviceScaleFactor: 2 });
      // A page with its own CSS that would change any box or word it reached: the shadow root
      // keeps the rules out, and the proof resets what the shadow tree would inherit. No
      // doctype: the page is in quirks mode, where a line holding only an inline block would be
      // as tall as the box (one paragraph in fifty measured differently before the boxes were
      // made a line height tall).
      await page.setContent(
        '<style>div{padding:13px!important;display:inline!important}span{font-size:90px!important}' +
          'body{font:italic 17px serif;word-spacing:9px;letter-spacing:3px;line-height:3;text-transform:uppercase}' +
          '</style><p>x</p>',
      );
      await page.addScriptTag({ content: (await bundleNamed('env-probes.js')).code.toString('utf8') });
      expect(await page.evaluate(() => document.compatMode)).toBe('BackCompat');
      for (let i = 0; i < 40; i++) {
        const taken = (await services.engineReference!.take())!;
        const measured = await page.evaluate(
          (p) =>
            (globalThis as unknown as { auditcaptchaMeasure: (p: unknown) => Promise<number[]> }).auditcaptchaMeasure(
              p,
            ),
          taken.probe,
        );
        expect(measured.every((v, i) => taken.values[i] === UNCHECKED || v === taken.values[i])).toBe(true);
      }
    } finally {
      await browser?.close();
    }
  });
});
