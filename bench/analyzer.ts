/**
 * Analyzer benchmark: analyses per second at concurrency 8 against a local fixture page, and
 * the median time of one analysis beside a bare fetch + cheerio parse of the same page.
 *
 *   npx tsx bench/analyzer.ts
 *
 * Bounded: at most `maxRuns` analyses (200) or `maxSeconds` (20 s) in the throughput phase.
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { load } from 'cheerio';
import { Agent, request } from 'undici';
import { analyzeUrl } from '../src/analyzer/analyze.ts';
import { defaultAnalyzerOptions } from '../src/analyzer/options.ts';
import { goodPath, goodSite } from '../test/analyzer/fixtures/pages.ts';
import { startFixtureServer } from '../test/analyzer/fixtures/server.ts';
import { parseTargetUrl } from '../src/analyzer/address-guard.ts';

/** Benchmark settings. */
export interface AnalyzerBenchOptions {
  concurrency?: number;
  maxRuns?: number;
  maxSeconds?: number;
  /** Sequential samples for the two medians. */
  samples?: number;
  /** Print the figures (default true). */
  print?: boolean;
}

/** Benchmark figures. */
export interface AnalyzerBenchResult {
  concurrency: number;
  analyses: number;
  seconds: number;
  analysesPerSecond: number;
  medianAnalysisMs: number;
  medianBareFetchParseMs: number;
  target: number;
  meetsTarget: boolean;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Run the benchmark; resolves with the figures (and prints them unless `print: false`). */
export async function main(settings: AnalyzerBenchOptions = {}): Promise<AnalyzerBenchResult> {
  const { concurrency = 8, maxRuns = 200, maxSeconds = 20, samples = 50, print = true } = settings;
  const routes = {};
  const server = await startFixtureServer(routes);
  Object.assign(routes, goodSite(server.origin, 'gzip'));
  const url = `${server.origin}${goodPath}`;
  const options = defaultAnalyzerOptions({ allowPrivate: true });
  const bareAgent = new Agent({ keepAliveTimeout: 10_000 });

  const analyzeOnce = async (): Promise<number> => {
    const started = performance.now();
    const result = await analyzeUrl(parseTargetUrl(url), options);
    if (result.status !== 200) throw new Error(`unexpected status ${result.status}`);
    return performance.now() - started;
  };
  const bareOnce = async (): Promise<number> => {
    const started = performance.now();
    const res = await request(url, { dispatcher: bareAgent, headers: { 'accept-encoding': 'gzip' } });
    const raw = Buffer.from(await res.body.arrayBuffer());
    const html = res.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
    const $ = load(html.toString('utf8'));
    if (!$('title').text()) throw new Error('no title');
    return performance.now() - started;
  };

  try {
    for (let i = 0; i < 30; i++) {
      // warm-up: JIT, connection setup paths
      await analyzeOnce();
      await bareOnce();
    }
    const analysisTimes: number[] = [];
    const bareTimes: number[] = [];
    for (let i = 0; i < samples; i++) {
      analysisTimes.push(await analyzeOnce());
      bareTimes.push(await bareOnce());
    }

    let started = 0;
    let completed = 0;
    const t0 = performance.now();
    const deadline = t0 + maxSeconds * 1000;
    const worker = async (): Promise<void> => {
      while (started < maxRuns && performance.now() < deadline) {
        started++;
        await analyzeOnce();
        completed++;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const seconds = (performance.now() - t0) / 1000;

    const target = 20;
    const result: AnalyzerBenchResult = {
      concurrency,
      analyses: completed,
      seconds: round(seconds),
      analysesPerSecond: round(completed / seconds, 1),
      medianAnalysisMs: round(median(analysisTimes)),
      medianBareFetchParseMs: round(median(bareTimes)),
      target,
      meetsTarget: completed / seconds >= target,
    };
    if (print) {
      console.log(`analyzer: ${result.analyses} analyses in ${result.seconds} s at concurrency ${concurrency}`);
      console.log(
        `  throughput          ${result.analysesPerSecond} analyses/s (target >= ${target}: ${result.meetsTarget ? 'met' : 'NOT met'})`,
      );
      console.log(
        `  median analysis     ${result.medianAnalysisMs} ms (page + robots.txt + 404 probe + sitemap, parse, ${samples} samples)`,
      );
      console.log(
        `  median fetch+parse  ${result.medianBareFetchParseMs} ms (bare undici request + cheerio load of the same page)`,
      );
    }
    return result;
  } finally {
    await bareAgent.close();
    await server.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
