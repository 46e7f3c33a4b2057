/**
 * A page measured N times: N analyses one after another (each in the account's analysis slot
 * and render share, so a measurement of N runs never holds more of the renderer than one run
 * does), each run's lab figures kept, and the representative run's results stored.
 */
import type { TargetUrl } from '../analyzer/index.ts';
import type { ReportAnalyzer } from './analysis.ts';
import { labFiguresOf, representativeRun } from './lab-samples.ts';
import type { StoredAnalysis } from './reports.ts';

/** Runs `runs` analyses of `url` and returns the representative one, with every run's lab figures. */
export async function analyzeRuns(
  analyzer: Pick<ReportAnalyzer, 'analyze'>,
  url: TargetUrl,
  opts: Parameters<ReportAnalyzer['analyze']>[1],
  runs: number,
  onRun?: (done: number) => void,
): Promise<StoredAnalysis> {
  const analyses: StoredAnalysis[] = [];
  for (let i = 0; i < runs; i++) {
    opts.signal?.throwIfAborted();
    analyses.push(await analyzer.analyze(url, opts));
    onRun?.(i + 1);
  }
  const figures = analyses.map((a) => labFiguresOf(a.results));
  const chosen = analyses[representativeRun(figures)];
  const samples = figures.filter((f) => f !== null);
  return { ...chosen, samples };
}
