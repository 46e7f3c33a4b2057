/**
 * The accessibility category beside Lighthouse 12's, on the accessibility fixture pages
 * (test/analyzer/render/a11y-fixtures.ts): for each kind of fault (text alternatives,
 * contrast, labels, names and roles, ARIA attributes, language, headings, lists, definition
 * lists, tables, duplicate ids, tab order, zoom and refresh, frame and page titles) a page
 * with it and the same page fixed, each audited once by each tool in the same Chromium build,
 * flags and User-Agent (Lighthouse: desktop preset, accessibility category only, one
 * Chromium for every run).
 *
 * Figures:
 *   - per-audit agreement: over every page and every rule, both tools pass it (a rule that
 *     does not apply passes) or both fail it (for Lighthouse's five informative audits,
 *     unscored in both and without a score in Lighthouse's, "fail" is Lighthouse listing
 *     elements and ours failed or needs review).
 *     Target >= 95 %.
 *   - Lighthouse's failures caught: rules Lighthouse failed that we failed too. Target >= 95 %.
 *   - the category score of each page, ours and Lighthouse's. Target: within 5 points on every page.
 *   - the time the category adds to a render: axe's injection and run, median over pages.
 *     Target <= 300 ms.
 *
 *   npm install --no-save lighthouse@12 chrome-launcher@1 && npx tsx bench/lighthouse-a11y.ts
 */
import { pathToFileURL } from 'node:url';
import { defaultAnalyzerOptions } from '../src/analyzer/options.ts';
import { accessibilityRules } from '../src/analyzer/checks/accessibility-rules.ts';
import { RenderingAnalyzer } from '../src/analyzer/render/analyzer.ts';
import { chromiumFlags, desktopUserAgent } from '../src/analyzer/render/browser.ts';
import { writeLauncher } from '../src/analyzer/render/sandbox.ts';
import { startFixtureServer } from '../test/analyzer/fixtures/server.ts';
import { a11yFixtures, a11ySite } from '../test/analyzer/render/a11y-fixtures.ts';
import { chromiumPath } from '../test/analyzer/render/fixtures.ts';
import { loadLighthouse } from './lighthouse.ts';
import { parseTargetUrl } from '../src/analyzer/address-guard.ts';

/** One page's figures. */
export interface A11yPageFigures {
  page: string;
  oursScore: number | null;
  lighthouseScore: number | null;
  /** Rules where the tools disagree, `rule: ours/Lighthouse`. */
  disagreements: string[];
  axeMs: number;
}

/** Figures of one run. */
export interface A11yBenchResult {
  pages: A11yPageFigures[];
  pairs: number;
  agreed: number;
  lighthouseFailures: number;
  caught: number;
  worstScoreDifference: number;
  medianAxeMs: number;
  meetsTargets: boolean;
}

interface LhAudit {
  score: number | null;
  scoreDisplayMode: string;
  details?: { items?: unknown[] };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Run the comparison; resolves with the figures (and prints them unless `print: false`). */
export async function main(settings: { print?: boolean } = {}): Promise<A11yBenchResult> {
  const log = settings.print === false ? () => undefined : console.log;
  const server = await startFixtureServer(a11ySite());
  const options = defaultAnalyzerOptions({ isAllowedAddress: (ip) => ip === '127.0.0.1' });
  const ours = new RenderingAnalyzer({
    mode: 'always',
    chromiumPath,
    contexts: 2,
    timeoutMs: 10_000,
    maxHeapMb: 256,
    maxBytes: 50e6,
    settleMs: 5000,
  });
  const { launch, lighthouse, desktopConfig } = await loadLighthouse();
  const userAgent = desktopUserAgent((await ours.pool.browser()).version());
  const launcher = await writeLauncher();
  process.env['AUDIT_CHROMIUM_BINARY'] = chromiumPath;
  process.env['AUDIT_CHROMIUM_USER'] ??= 'nobody';
  const chrome = await launch({ chromePath: launcher.path, chromeFlags: chromiumFlags });
  const lhConfig = {
    ...desktopConfig,
    settings: {
      ...desktopConfig.settings,
      throttlingMethod: 'provided' as const,
      emulatedUserAgent: userAgent,
      onlyCategories: ['accessibility'],
    },
  };
  const flags = { logLevel: 'error', output: 'json', port: chrome.port };
  const paths = a11yFixtures.flatMap((f) => [`/a11y/${f.kind}/bad`, `/a11y/${f.kind}/good`]);
  const pages: A11yPageFigures[] = [];
  let pairs = 0;
  let agreed = 0;
  let lighthouseFailures = 0;
  let caught = 0;
  try {
    // Warm both browsers outside the comparison.
    await ours.analyze(parseTargetUrl(`${server.origin}${paths[1]}`), options, true);
    await lighthouse(`${server.origin}${paths[1]}`, flags, lhConfig);
    for (const path of paths) {
      const url = `${server.origin}${path}`;
      const result = await ours.analyze(parseTargetUrl(url), options, true);
      const runner = await lighthouse(url, flags, lhConfig);
      const lhr = runner?.lhr as
        { audits: Record<string, LhAudit>; categories: { accessibility?: { score: number | null } } } | undefined;
      if (!lhr || result.rendering.status !== 'rendered' || result.rendering.accessibility?.error) {
        throw new Error(`${path}: a tool failed (${result.rendering.accessibility?.error ?? 'no Lighthouse result'})`);
      }
      const checks = new Map((result.results.accessibility ?? []).map((c) => [c.id, c]));
      const disagreements: string[] = [];
      for (const rule of accessibilityRules) {
        const audit = lhr.audits[rule.axe];
        // An informative audit has no score: it lists the elements it flags.
        const lhFailed =
          audit?.scoreDisplayMode === 'informative' ? (audit.details?.items?.length ?? 0) > 0 : audit?.score === 0;
        // Lighthouse's informative audits (weight 0 here) fail on violations and on elements
        // axe could not decide alone; ours lists those as failed or needs review.
        const outcome = (checks.get(rule.id)?.value as { outcome?: string } | undefined)?.outcome;
        const weFailed = outcome === 'failed' || (rule.weight === 0 && outcome === 'needs_review');
        pairs++;
        if (lhFailed === weFailed) agreed++;
        else disagreements.push(`${rule.axe}: ${weFailed ? 'fail' : 'pass'}/${lhFailed ? 'fail' : 'pass'}`);
        if (lhFailed) {
          lighthouseFailures++;
          if (weFailed) caught++;
        }
      }
      const lhScore = lhr.categories.accessibility?.score;
      const figures: A11yPageFigures = {
        page: path,
        oursScore: result.rendering.accessibility?.score ?? null,
        lighthouseScore: typeof lhScore === 'number' ? Math.round(lhScore * 100) : null,
        disagreements,
        axeMs: result.rendering.accessibility?.elapsedMs ?? 0,
      };
      pages.push(figures);
      log(
        `${path.padEnd(34)} score ours ${String(figures.oursScore).padStart(3)}, Lighthouse ${String(figures.lighthouseScore).padStart(3)}; axe ${figures.axeMs} ms${disagreements.length ? `; differ: ${disagreements.join(', ')}` : ''}`,
      );
    }
  } finally {
    await ours.close();
    chrome.kill();
    await launcher.remove();
    await server.close();
  }
  const worstScoreDifference = Math.max(
    ...pages.map((p) =>
      p.oursScore === null || p.lighthouseScore === null ? 100 : Math.abs(p.oursScore - p.lighthouseScore),
    ),
  );
  const medianAxeMs = median(pages.map((p) => p.axeMs));
  const result: A11yBenchResult = {
    pages,
    pairs,
    agreed,
    lighthouseFailures,
    caught,
    worstScoreDifference,
    medianAxeMs,
    meetsTargets:
      agreed / pairs >= 0.95 &&
      (lighthouseFailures === 0 || caught / lighthouseFailures >= 0.95) &&
      worstScoreDifference <= 5 &&
      medianAxeMs <= 300,
  };
  log('');
  log(`pages: ${pages.length} (${a11yFixtures.length} with faults, each also fixed)`);
  log(`per-audit agreement: ${agreed}/${pairs} (${((100 * agreed) / pairs).toFixed(1)} %), target >= 95 %`);
  log(
    `Lighthouse failures caught: ${caught}/${lighthouseFailures} (${lighthouseFailures ? ((100 * caught) / lighthouseFailures).toFixed(1) : '100'} %), target >= 95 %`,
  );
  log(`worst category score difference: ${worstScoreDifference} points, target <= 5 on every page`);
  log(`time the category adds to a render (axe, median): ${medianAxeMs} ms, target <= 300 ms`);
  log(`meets targets: ${result.meetsTargets}`);
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main();
}
