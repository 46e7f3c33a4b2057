/**
 * The environment proof must never fail a person whatever their engine: Debian's Firefox ESR
 * (Gecko, driven over WebDriver BiDi by puppeteer-core) lays out the service's paragraphs,
 * measured by the service's own Chromium, with the widget's code, and lands every checked
 * word on the same line. Then the widget itself, in Firefox, earns the proof on a real site.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import puppeteer, { type Browser } from 'puppeteer-core';
import { openTestServices, startTestServer, type TestServer, type TestServices } from '../helpers/services.ts';
import { UNCHECKED } from '../../src/captcha/env-proof.ts';
import type { LayoutReference } from '../../src/captcha/engine-reference.ts';
import { bundleNamed } from '../../src/bundles.ts';

const FIREFOX = process.env.FIREFOX_PATH || '/usr/bin/firefox-esr';
/** Like the Chromium suites: skipped off CI without the browser, failing on CI (.ci/run installs it). */
const skip = !existsSync(FIREFOX) && !process.env.CI;

let services: TestServices;
let server: TestServer;
let firefox: Browser;

beforeAll(async () => {
  if (!existsSync(FIREFOX))
    throw new Error(`This test needs Firefox at ${FIREFOX} (Debian: apt-get install firefox-esr).`);
  services = await openTestServices({ env: { CAPTCHA_ENGINE: 'auto' } });
  // The engine starts on its first take; start it here, in set-up, rather than in the test's time.
  await services.engineReference?.warm();
  server = await startTestServer(services);
  firefox = await puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX, headless: true });
}, 120_000);
afterAll(async () => {
  await firefox?.close();
  await server?.close();
  await services?.cleanup();
});

describe.skipIf(skip)('the environment proof in Firefox', () => {
  it('lands every checked word on the line Chromium measured, in 100 fresh paragraphs', async () => {
    const references: LayoutReference[] = [];
    for (let i = 0; i < 100; i++) references.push((await services.engineReference!.take())!);
    const page = await firefox.newPage();
    // A page whose own text settings would move every word, were they inherited.
    await page.setContent(
      '<!doctype html><style>body{font:italic 17px serif;word-spacing:9px;letter-spacing:3px;text-transform:uppercase}</style><p>x</p>',
    );
    await page.addScriptTag({ content: (await bundleNamed('env-probes.js')).code.toString('utf8') });
    const measured = await page.evaluate(
      async (probes: unknown[]) => {
        const measure = (globalThis as unknown as { auditcaptchaMeasure: (p: unknown) => Promise<number[]> })
          .auditcaptchaMeasure;
        const out: number[][] = [];
        for (const p of probes) out.push(await measure(p));
        return out;
      },
      references.map((r) => r.probe),
    );
    const agreeing = measured.filter((values, i) =>
      values.every((v, k) => references[i].values[k] === UNCHECKED || v === references[i].values[k]),
    );
    expect(agreeing).toHaveLength(references.length);
    await page.close();
  });
});
