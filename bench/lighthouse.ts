/**
 * Side by side with Lighthouse 12 on the rendering fixture pages (server- and client-rendered,
 * good and poor), both driving Debian's Chromium:
 *
 *   - for every audit both tools make (the table `sharedAudits`), whether the outcomes agree
 *     (ours: the check passed; Lighthouse: score >= 0.9; audits Lighthouse marks not
 *     applicable, manual or informative are left out). Target: at least 90 %.
 *   - seconds per page for both (each tool with its browser already running). Target: ours at
 *     least 5 times faster.
 *   - raw-HTML analyses with rendering off beside today's analyzeUrl. Target: as fast.
 *
 * Lighthouse runs with its desktop preset and `throttlingMethod: "provided"` (no simulated
 * slow network), the setting that matches a render at desktop size on the real network.
 *
 *   npx tsx bench/lighthouse.ts
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { analyzeUrl, defaultAnalyzerOptions, type CheckResult } from '../src/analyzer/index.ts';
import { RenderingAnalyzer, chromiumFlags } from '../src/analyzer/render/index.ts';
import { startFixtureServer } from '../test/analyzer/fixtures/server.ts';
import { chromiumPath, renderPages, renderSite } from '../test/analyzer/render/fixtures.ts';
/**
 * Lighthouse and chrome-launcher are not in package.json: their lock entries (a `latest`
 * dependency inside Lighthouse's trace engine) make `npm ci` refuse the lock on this npm.
 * Install them for this bench: `npm install --no-save lighthouse@12 chrome-launcher@1`.
 */
interface LighthouseKit {
  launch: (opts: { chromePath: string; chromeFlags: string[] }) => Promise<{ port: number; kill: () => unknown }>;
  lighthouse: (
    url: string,
    flags: { port: number; logLevel: string; output: string },
    config: unknown,
  ) => Promise<{ lhr: { audits: unknown; runtimeError?: { code: string; message: string } } } | undefined>;
  desktopConfig: { settings: Record<string, unknown> };
}

async function loadLighthouse(): Promise<LighthouseKit> {
  // Module names through a variable, so the type-check does not need the packages installed.
  const names = ['chrome-launcher', 'lighthouse', 'lighthouse/core/config/desktop-config.js'];
  try {
    const [launcher, lh, desktop] = (await Promise.all(names.map((n) => import(n)))) as [
      { launch: LighthouseKit['launch'] },
      { default: LighthouseKit['lighthouse'] },
      { default: LighthouseKit['desktopConfig'] },
    ];
    return { launch: launcher.launch, lighthouse: lh.default, desktopConfig: desktop.default };
  } catch {
    throw new Error('bench/lighthouse needs: npm install --no-save lighthouse@12 chrome-launcher@1');
  }
}

/** Our check id and the Lighthouse audit that judges the same thing. */
export const sharedAudits: Array<[ours: string, lighthouse: string]> = [
  ['title', 'document-title'],
  ['meta_description', 'meta-description'],
  ['language', 'html-has-lang'],
  ['meta_viewport', 'viewport'],
  ['image_keywords', 'image-alt'],
  ['canonical', 'canonical'],
  ['hreflang', 'hreflang'],
  ['noindex', 'is-crawlable'],
  ['robots', 'robots-txt'],
  ['doctype', 'doctype'],
  ['charset', 'charset'],
  ['dom_size', 'dom-size'],
  ['image_dimensions', 'unsized-images'],
  ['image_format', 'modern-image-formats'],
  ['first_contentful_paint', 'first-contentful-paint'],
  ['largest_contentful_paint', 'largest-contentful-paint'],
  ['total_blocking_time', 'total-blocking-time'],
  ['cumulative_layout_shift', 'cumulative-layout-shift'],
  ['total_byte_weight', 'total-byte-weight'],
  ['render_blocking_resources', 'render-blocking-resources'],
  ['oversized_images', 'uses-responsive-images'],
  ['offscreen_images', 'offscreen-images'],
  ['console_errors', 'errors-in-console'],
];

/** Figures of one run. */
export interface LighthouseBenchResult {
  pages: number;
  shared: number;
  agreed: number;
  agreement: number;
  oursSecondsPerPage: number;
  lighthouseSecondsPerPage: number;
  speedup: number;
  rawMedianMs: number;
  renderOffMedianMs: number;
  rawRatio: number;
  disagreements: string[];
  meetsTargets: boolean;
}

interface LhAudit {
  score: number | null;
  scoreDisplayMode: string;
  numericValue?: number;
  displayValue?: string;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Run the comparison; resolves with the figures (and prints them unless `print: false`). */
export async function main(settings: { print?: boolean; rawSamples?: number } = {}): Promise<LighthouseBenchResult> {
  const { print = true, rawSamples = 40 } = settings;
  const log = print ? console.log : () => undefined;
  const routes: Parameters<typeof startFixtureServer>[0] = {};
  const server = await startFixtureServer(routes);
  Object.assign(routes, await renderSite(server.origin));
  const options = defaultAnalyzerOptions({ isAllowedAddress: (ip) => ip === '127.0.0.1' });
  const ours = new RenderingAnalyzer({
    mode: 'always',
    chromiumPath,
    contexts: 2,
    timeoutMs: 10_000,
    maxHeapMb: 256,
    maxBytes: 50e6,
    settleMs: 1500,
  });
  const { launch, lighthouse, desktopConfig } = await loadLighthouse();
  const chrome = await launch({ chromePath: chromiumPath, chromeFlags: chromiumFlags });
  const lhConfig = { ...desktopConfig, settings: { ...desktopConfig.settings, throttlingMethod: 'provided' as const } };

  let shared = 0;
  let agreed = 0;
  const disagreements: string[] = [];
  const oursMs: number[] = [];
  const lhMs: number[] = [];
  try {
    // Warm both browsers on a page outside the comparison.
    await ours.analyze(`${server.origin}/lean`, options);
    await lighthouse(`${server.origin}/lean`, { port: chrome.port, logLevel: 'error', output: 'json' }, lhConfig);

    log(`${'page'.padEnd(28)} ${'ours s'.padStart(7)} ${'LH s'.padStart(7)} agree`);
    for (const fixture of renderPages) {
      const url = `${server.origin}${fixture.path}`;
      let started = performance.now();
      const result = await ours.analyze(url, options);
      oursMs.push(performance.now() - started);
      started = performance.now();
      const runner = await lighthouse(url, { port: chrome.port, logLevel: 'error', output: 'json' }, lhConfig);
      lhMs.push(performance.now() - started);
      const audits = (runner?.lhr.audits ?? {}) as Record<string, LhAudit>;
      const runtimeError = runner?.lhr.runtimeError;
      if (runtimeError)
        log(
          `  Lighthouse could not audit ${fixture.path}: ${runtimeError.code} (${runtimeError.message.slice(0, 120)})`,
        );
      const checks = new Map<string, CheckResult>(
        Object.values(result.results)
          .flat()
          .map((c) => [c.id, c]),
      );
      let pageShared = 0;
      let pageAgreed = 0;
      for (const [ourId, lhId] of sharedAudits) {
        const ourCheck = checks.get(ourId);
        const audit = audits[lhId];
        if (
          !ourCheck ||
          !audit ||
          audit.score === null ||
          ['notApplicable', 'manual', 'informative', 'error'].includes(audit.scoreDisplayMode)
        )
          continue;
        const lhPassed = audit.score >= 0.9;
        pageShared++;
        if (lhPassed === ourCheck.passed) pageAgreed++;
        else {
          disagreements.push(
            `${fixture.path} ${ourId}/${lhId}: ours ${ourCheck.passed ? 'pass' : 'fail'} (${JSON.stringify(ourCheck.value)}), Lighthouse ${lhPassed ? 'pass' : 'fail'} (${audit.displayValue ?? audit.score})`,
          );
        }
      }
      shared += pageShared;
      agreed += pageAgreed;
      log(
        `${`${fixture.path} (${fixture.kind}, ${fixture.quality})`.padEnd(28)} ${round(oursMs.at(-1)! / 1000)
          .toString()
          .padStart(7)} ${round(lhMs.at(-1)! / 1000)
          .toString()
          .padStart(7)} ${pageAgreed}/${pageShared}`,
      );
    }
  } finally {
    await ours.close();
    chrome.kill();
  }

  // Rendering off: the raw path is analyzeUrl itself; `auto` on a server-rendered page skips rendering.
  const skipper = new RenderingAnalyzer({
    mode: 'auto',
    chromiumPath,
    contexts: 1,
    timeoutMs: 10_000,
    maxHeapMb: 256,
    maxBytes: 50e6,
    settleMs: 1500,
  });
  const rawUrl = `${server.origin}/lean`;
  const raw: number[] = [];
  const off: number[] = [];
  try {
    for (let i = 0; i < 10; i++) {
      await analyzeUrl(rawUrl, options);
      await skipper.analyze(rawUrl, options);
    }
    for (let i = 0; i < rawSamples; i++) {
      let t = performance.now();
      await analyzeUrl(rawUrl, options);
      raw.push(performance.now() - t);
      t = performance.now();
      const r = await skipper.analyze(rawUrl, options);
      if (r.rendering.status !== 'skipped') throw new Error('a server-rendered page was rendered in auto mode');
      off.push(performance.now() - t);
    }
  } finally {
    await skipper.close();
    await server.close();
  }

  const oursS = oursMs.reduce((a, b) => a + b, 0) / oursMs.length / 1000;
  const lhS = lhMs.reduce((a, b) => a + b, 0) / lhMs.length / 1000;
  const figures: LighthouseBenchResult = {
    pages: renderPages.length,
    shared,
    agreed,
    agreement: round(agreed / Math.max(1, shared), 3),
    oursSecondsPerPage: round(oursS),
    lighthouseSecondsPerPage: round(lhS),
    speedup: round(lhS / oursS, 1),
    rawMedianMs: round(median(raw)),
    renderOffMedianMs: round(median(off)),
    rawRatio: round(median(off) / median(raw)),
    disagreements,
    meetsTargets: false,
  };
  figures.meetsTargets = figures.agreement >= 0.9 && figures.speedup >= 5 && figures.rawRatio <= 1.1;
  log(`\nshared audits: ${agreed}/${shared} agree (${round(100 * figures.agreement, 1)} %, target >= 90 %)`);
  for (const d of disagreements) log(`  differs: ${d}`);
  log(
    `seconds per page: ours ${figures.oursSecondsPerPage}, Lighthouse ${figures.lighthouseSecondsPerPage} (${figures.speedup}x faster, target >= 5x)`,
  );
  log(
    `raw HTML, rendering off: median ${figures.renderOffMedianMs} ms vs analyzeUrl ${figures.rawMedianMs} ms (ratio ${figures.rawRatio}, target <= 1.1)`,
  );
  log(figures.meetsTargets ? 'targets met' : 'TARGETS NOT MET');
  return figures;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main();
}
