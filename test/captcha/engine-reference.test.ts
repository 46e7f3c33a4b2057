import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { openTestServices, type TestServices } from '../helpers/services.ts';
import { MAX_PROBE_USES, probeValueCount } from '../../src/captcha/env-proof.ts';
import { bundleNamed } from '../../widget/build.ts';

let services: TestServices;
beforeAll(async () => {
  services = await openTestServices();
});
afterAll(async () => {
  await services?.cleanup();
});

describe('environment proof: reference values from the service’s own Chromium', () => {
  it('measures fresh layouts in a real engine, each handed out at most twice', async () => {
    const reference = services.engineReference!;
    expect(reference).toBeDefined();
    const seen = new Map<string, number>();
    for (let i = 0; i < 40; i++) {
      const taken = (await reference.take())!;
      expect(taken.values).toHaveLength(probeValueCount(taken.probe));
      // Real layout: boxes have sizes, and not every box sits at the origin.
      expect(taken.values.some((v, k) => k % 4 === 2 && v > 0)).toBe(true);
      const key = JSON.stringify(taken.probe);
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    expect(Math.max(...seen.values())).toBeLessThanOrEqual(MAX_PROBE_USES);
  });

  it('a browser measuring the same layout with the widget’s code gets the same values', async () => {
    const taken = (await services.engineReference!.take())!;
    let browser: Browser | undefined;
    try {
      browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
      const page = await browser.newPage({ viewport: { width: 390, height: 700 }, deviceScaleFactor: 2 });
      // A page with its own CSS that would change any box it reached: the shadow root keeps it out.
      await page.setContent('<style>div{padding:13px!important;display:inline!important}</style><p>x</p>');
      await page.addScriptTag({ content: (await bundleNamed('env-probes.js')).code.toString('utf8') });
      const measured = await page.evaluate(
        (p) => (globalThis as unknown as { auditcaptchaMeasure: (p: unknown) => number[] }).auditcaptchaMeasure(p),
        taken.probe,
      );
      expect(measured.map((v, i) => Math.abs(v - taken.values[i])).every((d) => d <= 1)).toBe(true);
    } finally {
      await browser?.close();
    }
  });
});
