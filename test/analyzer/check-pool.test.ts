/**
 * The check pool: checks run in worker threads with the same results as in-thread, a page
 * whose checks outrun the budget fails with check_budget (its worker terminated, the pool
 * still serving), and an abort stops a running task.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CheckPool } from '../../src/analyzer/check-pool.ts';
import { AnalyzeError } from '../../src/analyzer/errors.ts';
import { defaultThresholds } from '../../src/analyzer/thresholds.ts';
import { runPageChecks, type CheckInput } from '../../src/analyzer/check-worker.ts';
import { defaultUserAgent } from '../../src/analyzer/thresholds.ts';
import { goodPage } from './fixtures/pages.ts';

const pool = new CheckPool({ threads: 2 });
afterAll(() => pool.close());

function input(html: string): CheckInput {
  const size = Buffer.byteLength(html);
  return {
    url: 'https://example.test/page',
    requestedUrl: 'https://example.test/page',
    html,
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    httpVersion: '1.1',
    timings: { ttfbMs: 10, totalMs: 20 },
    transferredBytes: size,
    decodedBytes: size,
    thresholds: { ...defaultThresholds },
    userAgent: defaultUserAgent,
  };
}

/** A page that takes seconds to parse and check: 4 MB of nested, attribute-heavy links. */
function heavyPage(): string {
  const row = '<div style="x"><a href="https://x.test/a" target="_blank"><img src="a.png">w</a></div>';
  return `<!DOCTYPE html><html><body>${row.repeat(4_000_000 / row.length)}</body></html>`;
}

describe('CheckPool', () => {
  it('gives the results the checks give in-thread', { timeout: 60_000 }, async () => {
    const page = input(goodPage('https://example.test'));
    const inWorker = await pool.run(page, 30_000);
    expect(inWorker).toEqual(runPageChecks(page));
  });

  it('fails a page past its budget with check_budget, and keeps serving others', { timeout: 60_000 }, async () => {
    const err = await pool.run(input(heavyPage()), 50).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnalyzeError);
    expect((err as AnalyzeError).reason).toBe('check_budget');
    expect((err as AnalyzeError).message).toBe("The page's checks did not finish within their 50 ms budget.");
    const next = await pool.run(input('<!DOCTYPE html><title>ok</title>'), 30_000);
    expect(next.miscellaneous.find((c) => c.id === 'doctype')?.passed).toBe(true);
  });

  it('stops a running task when the caller aborts', { timeout: 60_000 }, async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    const running = pool.run(input(heavyPage()), 60_000, controller.signal);
    setTimeout(() => controller.abort(reason), 100);
    await expect(running).rejects.toBe(reason);
  });
});
