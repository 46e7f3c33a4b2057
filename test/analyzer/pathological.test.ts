/**
 * Every check, over every pathological input, runs in bounded time (here in-thread, so each
 * check is timed alone): linear scanners and parser-based logic, no backtracking blow-up.
 * The same inputs go through the service in hostile.test.ts, with /healthz watched.
 */
import { describe, expect, it } from 'vitest';
import { allChecks } from '../../src/analyzer/run-checks.ts';
import { PageContext } from '../../src/analyzer/page.ts';
import { runCheck } from '../../src/analyzer/checks/types.ts';
import { pathologicalCases } from './pathological.ts';

const cases = pathologicalCases(1 << 20);

describe('pathological inputs', () => {
  it('aim at every check', () => {
    const targeted = new Set(cases.flatMap((c) => c.targets));
    expect(allChecks.map((c) => c.id).filter((id) => !targeted.has(id))).toEqual([]);
  });

  it.each(cases.filter((c) => !c.parserBound).map((c) => [c.name, c] as const))(
    '%s: each check finishes quickly',
    { timeout: 120_000 },
    (_name, c) => {
      const page = new PageContext({
        url: `https://victim.test${c.path ?? '/'}`,
        html: c.html,
        headers: { 'content-type': 'text/html', ...c.headers },
        aux: {
          robots: { url: 'https://victim.test/robots.txt', status: 200, text: c.robots ?? 'User-agent: *\nAllow: /\n' },
          notFound: { url: 'https://victim.test/missing', status: 200 },
          sitemap: { url: 'https://victim.test/sitemap.xml', status: 200, source: 'default', found: false },
          httpVariant: { url: 'http://victim.test/', status: 200, finalUrl: 'http://victim.test/' },
        },
      });
      const slow: string[] = [];
      for (const check of allChecks) {
        const t0 = performance.now();
        runCheck(check, page);
        const ms = performance.now() - t0;
        // A super-linear check takes minutes to hours on a 1 MiB input; linear ones take milliseconds.
        if (ms > 5_000) slow.push(`${check.id}: ${ms.toFixed(0)} ms`);
      }
      expect(slow).toEqual([]);
    },
  );
});
