/**
 * A layout oracle: one headless Chromium page running the widget's env-probes.js bundle
 * (widget/env-probes.ts's `measureProbe`), loaded the way the service's own reference engine
 * loads it (src/captcha/engine-reference.ts). Tests compare attackers with it; the adversary
 * bench uses it as the "layout oracle" attacker: an HTTP client that asks a browser page only
 * for the layout.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { ProbeBox } from '../../src/captcha/env-proof.ts';
import { bundleNamed } from '../../src/bundles.ts';

export interface ProbeOracle {
  /** The values the widget would answer for each probe, measured in one page. */
  measure(probes: ProbeBox[]): Promise<number[][]>;
  close(): Promise<void>;
}

/** Opens a page of its own in `browser` with the env-probes bundle loaded. */
export async function openProbeOracle(browser: Browser): Promise<ProbeOracle> {
  const script = (await bundleNamed('env-probes.js')).code.toString('utf8');
  const context: BrowserContext = await browser.newContext({ javaScriptEnabled: true });
  const page: Page = await context.newPage();
  await page.setContent('<!doctype html><html><head></head><body></body></html>');
  await page.addScriptTag({ content: script });
  return {
    measure: (probes) =>
      page.evaluate(async (ps) => {
        const measure = (globalThis as unknown as { auditcaptchaMeasure: (p: unknown) => Promise<number[]> })
          .auditcaptchaMeasure;
        const out: number[][] = [];
        for (const p of ps) out.push(await measure(p));
        return out;
      }, probes),
    close: () => context.close().catch(() => {}),
  };
}
