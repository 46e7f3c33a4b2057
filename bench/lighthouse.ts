/**
 * Side by side with Lighthouse 12 on the rendering fixture pages, both driving Debian's
 * Chromium with the same explicit flags (`chromiumFlags`, scrollbars shown) and the same
 * desktop Chrome User-Agent. Pages: `renderPages` (server- and client-rendered, good and poor)
 * and `latePages` (activity after the load event: a hero from a fetch, banners, lazy images, a
 * font swap, a carousel, long tasks, a client-side route change). Each page is measured three
 * times by each tool, interleaved; a failed run (our render failing, or Lighthouse's
 * runtimeError) is left out of the timing and listed.
 *
 * Figures:
 *   - per metric (FCP, LCP, TBT, CLS): pass/fail agreement over the run pairs, how many of
 *     Lighthouse's failures we also failed, and the median and worst value error over pages
 *     (median of each tool's runs; relative error, CLS absolute). Targets: we catch >= 95 % of
 *     Lighthouse's failures; median error <= 10 %, worst <= 25 % (CLS: <= 0.02 absolute counts
 *     as within).
 *   - every other audit both tools make (`sharedAudits`): agreement over the run pairs.
 *   - seconds per page for each tool (browsers already running). Target: ours >= 5x faster.
 *   - raw-HTML analyses with rendering off beside analyzeUrl. Target: as fast (ratio <= 1.1).
 *
 * Lighthouse runs with its desktop preset and `throttlingMethod: "provided"`; in that mode it
 * widens its quiet windows to 5.25 s (config.js overrideThrottlingWindows), ours stay at 1 s.
 * Each Lighthouse run gets a Chromium of its own, as the Lighthouse CLI does; `--shared-chrome`
 * keeps one Chromium for every run. Ours renders in a context of its own made ahead of the
 * render (decision 0011). Lighthouse always traces with the filmstrip's screenshot category,
 * which delays its first paints by about 20 ms (bench/README.md). Launching is not timed.
 *
 *   npm install --no-save lighthouse@12 chrome-launcher@1 && npx tsx bench/lighthouse.ts [--shared-chrome]
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { analyzeUrl } from '../src/analyzer/analyze.ts';
import type { CheckResult } from '../src/analyzer/checks/types.ts';
import { defaultAnalyzerOptions } from '../src/analyzer/options.ts';
import { RenderingAnalyzer } from '../src/analyzer/render/analyzer.ts';
import { chromiumFlags, desktopUserAgent } from '../src/analyzer/render/browser.ts';
import { writeLauncher } from '../src/analyzer/render/sandbox.ts';
import { startFixtureServer } from '../test/analyzer/fixtures/server.ts';
import { chromiumPath, renderPages, renderSite } from '../test/analyzer/render/fixtures.ts';
import { latePages, lateSite } from '../test/analyzer/render/late-fixtures.ts';
import { metricFigures, printFigures, type Measured, type MetricFigures } from './lib/lighthouse-figures.ts';
import { parseTargetUrl } from '../src/analyzer/address-guard.ts';

/**
 * Lighthouse and chrome-launcher are not in package.json: their lock entries (a `latest`
 * dependency inside Lighthouse's trace engine) make `npm ci` refuse the lock on this npm.
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

export async function loadLighthouse(): Promise<LighthouseKit> {
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

/** Our check id and the Lighthouse audit that judges the same thing (the lab metrics first). */
export const sharedAudits: Array<[ours: string, lighthouse: string]> = [
  ['first_contentful_paint', 'first-contentful-paint'],
  ['largest_contentful_paint', 'largest-contentful-paint'],
  ['total_blocking_time', 'total-blocking-time'],
  ['cumulative_layout_shift', 'cumulative-layout-shift'],
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
  ['total_byte_weight', 'total-byte-weight'],
  ['render_blocking_resources', 'render-blocking-resources'],
  ['oversized_images', 'uses-responsive-images'],
  ['offscreen_images', 'offscreen-images'],
  ['console_errors', 'errors-in-console'],
];

/** Figures of one run of the bench. */
export interface LighthouseBenchResult {
  pages: number;
  runsPerPage: number;
  failedRuns: string[];
  metrics: MetricFigures[];
  otherAudits: { shared: number; agreed: number };
  oursSecondsPerPage: number;
  lighthouseSecondsPerPage: number;
  speedup: number;
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

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Run the comparison; resolves with the figures (and prints them unless `print: false`). */
export async function main(
  settings: { print?: boolean; runs?: number; rawSamples?: number; sharedChrome?: boolean } = {},
): Promise<LighthouseBenchResult> {
  const { print = true, runs = 3, rawSamples = 20 } = settings;
  const sharedChrome = settings.sharedChrome ?? process.argv.includes('--shared-chrome');
  const log = print ? console.log : () => undefined;
  const routes: Parameters<typeof startFixtureServer>[0] = {};
  const server = await startFixtureServer(routes);
  Object.assign(routes, await renderSite(server.origin), await lateSite());
  const pages = [...renderPages, ...latePages];
  const options = defaultAnalyzerOptions({ isAllowedAddress: (ip) => ip === '127.0.0.1' });
  // The service's defaults: ANALYZER_RENDER_TIMEOUT_MS 10 s, ANALYZER_RENDER_MAX_WAIT_MS 5 s.
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
  // Lighthouse's Chromium starts through our launcher too: sandboxed as an unprivileged user
  // when this runs as root (Chromium refuses root without --no-sandbox), --disable-features merged.
  const launcher = await writeLauncher();
  process.env['AUDIT_CHROMIUM_BINARY'] = chromiumPath;
  process.env['AUDIT_CHROMIUM_USER'] ??= 'nobody';
  const startChrome = () => launch({ chromePath: launcher.path, chromeFlags: chromiumFlags });
  let chrome = await startChrome();
  const lhConfig = {
    ...desktopConfig,
    settings: { ...desktopConfig.settings, throttlingMethod: 'provided' as const, emulatedUserAgent: userAgent },
  };
  const flags = { logLevel: 'error', output: 'json' };

  const measured: Measured[] = [];
  const failedRuns: string[] = [];
  const oursMs: number[] = [];
  const lhMs: number[] = [];
  try {
    // Warm both browsers on a page outside the comparison.
    await ours.analyze(parseTargetUrl(`${server.origin}/lean`), options);
    await lighthouse(`${server.origin}/lean`, { ...flags, port: chrome.port }, lhConfig);
    log(`User-Agent of both: ${userAgent}; Lighthouse's Chromium ${sharedChrome ? 'shared' : 'new for each run'}`);
    for (let run = 1; run <= runs; run++) {
      for (const fixture of pages) {
        const url = `${server.origin}${fixture.path}`;
        let started = performance.now();
        const result = await ours.analyze(parseTargetUrl(url), options);
        const oursElapsed = performance.now() - started;
        if (!sharedChrome) {
          chrome.kill();
          chrome = await startChrome();
        }
        started = performance.now();
        const runner = await lighthouse(url, { ...flags, port: chrome.port }, lhConfig);
        const lhElapsed = performance.now() - started;
        const runtimeError = runner?.lhr.runtimeError;
        const oursOk = result.rendering.status === 'rendered';
        if (oursOk) oursMs.push(oursElapsed);
        else failedRuns.push(`ours ${fixture.path} run ${run}: ${result.rendering.reason ?? 'not rendered'}`);
        if (runner && !runtimeError) lhMs.push(lhElapsed);
        else failedRuns.push(`Lighthouse ${fixture.path} run ${run}: ${runtimeError?.code ?? 'no result'}`);
        const checks = new Map<string, CheckResult>(
          Object.values(result.results)
            .flat()
            .map((c) => [c.id, c]),
        );
        const audits = (runner?.lhr.audits ?? {}) as Record<string, LhAudit>;
        measured.push({
          page: fixture.path,
          run,
          oursOk,
          lighthouseOk: Boolean(runner && !runtimeError),
          ours: Object.fromEntries(
            sharedAudits.map(([id]) => [id, checks.get(id)?.passed ?? null] as [string, boolean | null]),
          ),
          oursValues: result.rendering.lab
            ? {
                first_contentful_paint: result.rendering.lab.fcpMs,
                largest_contentful_paint: result.rendering.lab.lcpMs,
                total_blocking_time: result.rendering.lab.tbtMs,
                cumulative_layout_shift: result.rendering.lab.cls,
              }
            : {},
          lighthouse: Object.fromEntries(
            sharedAudits.map(([id, lhId]) => {
              const a = audits[lhId];
              const usable =
                a &&
                a.score !== null &&
                !['notApplicable', 'manual', 'informative', 'error'].includes(a.scoreDisplayMode);
              return [id, usable ? a.score! >= 0.9 : null] as [string, boolean | null];
            }),
          ),
          lighthouseValues: Object.fromEntries(
            sharedAudits.slice(0, 4).map(([id, lhId]) => [id, audits[lhId]?.numericValue ?? null]),
          ),
          details: Object.fromEntries(
            sharedAudits.map(([id, lhId]) => [
              id,
              `ours ${JSON.stringify(checks.get(id)?.value)}, Lighthouse ${audits[lhId]?.displayValue ?? audits[lhId]?.score}`,
            ]),
          ),
        });
        log(
          `run ${run} ${fixture.path.padEnd(26)} ours ${round(oursElapsed / 1000)
            .toString()
            .padStart(5)} s, Lighthouse ${round(lhElapsed / 1000)
            .toString()
            .padStart(5)} s`,
        );
      }
    }
  } finally {
    await ours.close();
    chrome.kill();
    await launcher.remove();
  }

  // Rendering off: the raw path is analyzeUrl itself; `auto` on a server-rendered page skips rendering.
  const skipper = new RenderingAnalyzer({
    mode: 'auto',
    chromiumPath,
    contexts: 1,
    timeoutMs: 10_000,
    maxHeapMb: 256,
    maxBytes: 50e6,
    settleMs: 5000,
  });
  const rawUrl = `${server.origin}/lean`;
  const raw: number[] = [];
  const off: number[] = [];
  try {
    for (let i = 0; i < 10; i++) {
      await analyzeUrl(parseTargetUrl(rawUrl), options);
      await skipper.analyze(parseTargetUrl(rawUrl), options);
    }
    for (let i = 0; i < rawSamples; i++) {
      let t = performance.now();
      await analyzeUrl(parseTargetUrl(rawUrl), options);
      raw.push(performance.now() - t);
      t = performance.now();
      const r = await skipper.analyze(parseTargetUrl(rawUrl), options);
      if (r.rendering.status !== 'skipped') throw new Error('a server-rendered page was rendered in auto mode');
      off.push(performance.now() - t);
    }
  } finally {
    await skipper.close();
    await server.close();
  }

  const figures = metricFigures(
    measured,
    sharedAudits.slice(0, 4).map(([id]) => id),
  );
  let shared = 0;
  let agreed = 0;
  const disagreements: string[] = [];
  for (const m of measured) {
    if (!m.oursOk || !m.lighthouseOk) continue;
    for (const [id, lhId] of sharedAudits.slice(4)) {
      const o = m.ours[id];
      const l = m.lighthouse[id];
      if (o === null || o === undefined || l === null || l === undefined) continue;
      shared++;
      if (o === l) agreed++;
      else disagreements.push(`${m.page} run ${m.run} ${id}/${lhId}: ${m.details[id]}`);
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length) / 1000;
  const result: LighthouseBenchResult = {
    pages: pages.length,
    runsPerPage: runs,
    failedRuns,
    metrics: figures,
    otherAudits: { shared, agreed },
    oursSecondsPerPage: round(mean(oursMs)),
    lighthouseSecondsPerPage: round(mean(lhMs)),
    speedup: round(mean(lhMs) / mean(oursMs), 1),
    rawRatio: round(median(off) / median(raw)),
    disagreements,
    meetsTargets: false,
  };
  result.meetsTargets =
    figures.every((f) => f.meetsTargets) && result.speedup >= 5 && result.rawRatio <= 1.1 && failedRuns.length === 0;
  if (print) printFigures(figures, measured);
  log(
    `\nother shared audits: ${agreed}/${shared} run pairs agree (${round((100 * agreed) / Math.max(1, shared), 1)} %)`,
  );
  for (const d of disagreements) log(`  differs: ${d}`);
  log(`failed runs (left out of the timing): ${failedRuns.length ? '' : 'none'}`);
  for (const f of failedRuns) log(`  ${f}`);
  log(
    `seconds per page: ours ${result.oursSecondsPerPage}, Lighthouse ${result.lighthouseSecondsPerPage} (${result.speedup}x faster, target >= 5x)`,
  );
  log(
    `raw HTML, rendering off: median ${round(median(off))} ms vs analyzeUrl ${round(median(raw))} ms (ratio ${result.rawRatio}, target <= 1.1)`,
  );
  log(result.meetsTargets ? 'targets met' : 'TARGETS NOT MET');
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main();
}
