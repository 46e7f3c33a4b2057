/**
 * Proof-of-work solve times in Chromium through the widget's own worker code (minified as in
 * widget.js). By default it checks levels 12..16 once (a few seconds of CPU); with
 * POW_TIMING_RUNS=n it covers every level the risk model hands out (12..20), n times each,
 * and prints the table (`POW_TIMING_RUNS=10 npx vitest run test/e2e/pow-timing.test.ts`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { fileURLToPath } from 'node:url';
import { verifyPow } from '../../src/captcha/pow.ts';
import { POW_DIFFICULTY_RANGE } from '../../src/captcha/risk.ts';
import { WIDGET_TARGET } from '../../src/widget-build.ts';
import { launchChromium, PageServer, requireChromium, skipE2e } from './harness.ts';

const runs = Math.max(1, Number(process.env.POW_TIMING_RUNS) || 1);
const maxBits = process.env.POW_TIMING_RUNS ? POW_DIFFICULTY_RANGE.max : 16;

describe.skipIf(skipE2e)('proof-of-work timing in Chromium', () => {
  let browser: Browser;
  let pages: PageServer;
  let page: Page;

  beforeAll(async () => {
    requireChromium();
    const pow = fileURLToPath(new URL('../../src/widget/pow.ts', import.meta.url));
    const out = await build({
      stdin: { contents: `import { startPow, solvePow } from ${JSON.stringify(pow)}; window.pow = { startPow, solvePow };`, loader: 'ts', resolveDir: process.cwd() },
      bundle: true,
      minify: true,
      format: 'iife',
      target: WIDGET_TARGET,
      write: false,
    });
    [browser, pages] = await Promise.all([launchChromium(), new PageServer().start()]);
    const url = pages.page('/pow', `<!doctype html><title>pow</title><script>${out.outputFiles[0]!.text}</script>`);
    page = await browser.newPage();
    await page.goto(url);
  });
  afterAll(async () => {
    await browser?.close();
    await pages?.close();
  });

  it('solves every level in a Web Worker; the server accepts each nonce', async () => {
    // Throughput of each engine in the worker over 1.5 s (difficulty 32 never finishes); the
    // hashes done follow from the reported fraction, 1 - e^(-hashes / 2^32).
    const rates = await page.evaluate(async () => {
      const out: Record<string, number> = {};
      for (const engine of ['webcrypto', 'js'] as const) {
        let fraction = 0;
        const job = (window as any).pow.startPow('throughput-salt-0000000', 32, (f: number) => (fraction = f), engine);
        job.promise.catch(() => {});
        await new Promise((resolve) => setTimeout(resolve, 1500));
        job.cancel();
        out[engine] = (-Math.log1p(-fraction) * 2 ** 32) / 1.5;
      }
      return out;
    });

    const rows: string[] = [];
    for (let difficulty = POW_DIFFICULTY_RANGE.min; difficulty <= maxBits; difficulty++) {
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const salt = `t${difficulty}-${i}-${Math.random().toString(36).slice(2, 12)}`;
        const { nonce, ms, progressed } = await page.evaluate(
          async ([salt, difficulty]) => {
            const started = performance.now();
            let progressed = 0;
            const nonce: string = await (window as any).pow.startPow(salt, difficulty, (f: number) => (progressed = f)).promise;
            return { nonce, ms: performance.now() - started, progressed };
          },
          [salt, difficulty] as const,
        );
        expect(verifyPow(salt, difficulty, nonce)).toBe(true);
        expect(progressed).toBeGreaterThanOrEqual(0);
        times.push(ms);
      }
      times.sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)]!;
      const mean = times.reduce((a, b) => a + b, 0) / times.length;
      const expected = (engine: 'webcrypto' | 'js') => ((2 ** difficulty / rates[engine]!) * 1000).toFixed(0).padStart(7);
      rows.push(`${String(difficulty).padStart(4)} | ${mean.toFixed(0).padStart(7)} | ${median.toFixed(0).padStart(6)} | ${expected('webcrypto')} | ${expected('js')}`);
    }
    console.log(
      [
        `Proof of work in Chromium (${runs} run(s) per level; worker, default engine WebCrypto)`,
        `throughput: WebCrypto ${Math.round(rates.webcrypto!)} hashes/s, plain JS ${Math.round(rates.js!)} hashes/s`,
        'bits | mean ms | median | expected mean ms (2^bits / rate): webcrypto | js',
        ...rows,
      ].join('\n'),
    );
  }, 240_000);
});
