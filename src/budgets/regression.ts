/**
 * A regression against a baseline: per lab metric, the runs of a page now against the runs of
 * the baseline, with a one-sided Mann-Whitney U test (is it worse now?). A metric regressed
 * when the test is significant (p < {@link SIGNIFICANCE}) and the medians moved by at least
 * the metric's minimum effect, so a difference too small to matter is not reported however
 * many runs show it. Fewer than {@link MIN_RUNS} runs on either side are not tested (with 2 and
 * 2 runs the smallest exact p is 1/6).
 */
import type { LabMetric } from './lighthouse-map.ts';
import { mannWhitneyU } from './mann-whitney.ts';
import { median, type LabFigures } from '../reports/lab-samples.ts';

export const SIGNIFICANCE = 0.05;
/** Fewest runs on each side for a test. */
export const MIN_RUNS = 3;

/**
 * The smallest change of a median that counts, per metric, and which way is worse. Chosen at
 * what a visitor or Lighthouse's score would notice: 100 ms of paint, 50 ms of blocking,
 * 0.02 of layout shift, 5 points of lab score, 50 KiB of download.
 */
export const minimumEffects: Record<LabMetric, { min: number; worse: 'higher' | 'lower'; unit: string }> = {
  fcp: { min: 100, worse: 'higher', unit: 'ms' },
  lcp: { min: 100, worse: 'higher', unit: 'ms' },
  tbt: { min: 50, worse: 'higher', unit: 'ms' },
  cls: { min: 0.02, worse: 'higher', unit: '' },
  score: { min: 5, worse: 'lower', unit: 'points' },
  bytes: { min: 50 * 1024, worse: 'higher', unit: 'bytes' },
};

/** One metric compared. */
export interface MetricComparison {
  metric: LabMetric;
  baseline_median: number;
  median: number;
  /** median - baseline_median. */
  change: number;
  p_value: number;
  runs: number;
  baseline_runs: number;
  /** Significant and at least the minimum effect, the worse way. */
  regressed: boolean;
}

const values = (runs: readonly LabFigures[], m: LabMetric) =>
  runs.map((r) => r[m]).filter((v): v is number => v !== null && Number.isFinite(v));

/** Every metric both sides measured at least {@link MIN_RUNS} times, compared. */
export function compareRuns(current: readonly LabFigures[], baseline: readonly LabFigures[]): MetricComparison[] {
  const out: MetricComparison[] = [];
  for (const [metric, effect] of Object.entries(minimumEffects) as Array<
    [LabMetric, (typeof minimumEffects)[LabMetric]]
  >) {
    const now = values(current, metric);
    const before = values(baseline, metric);
    if (now.length < MIN_RUNS || before.length < MIN_RUNS) continue;
    const { p } = mannWhitneyU(now, before, effect.worse === 'higher' ? 'greater' : 'less');
    const m = median(now);
    const b = median(before);
    const change = m - b;
    const worseBy = effect.worse === 'higher' ? change : -change;
    const round = (n: number) => Math.round(n * 1000) / 1000;
    out.push({
      metric,
      baseline_median: round(b),
      median: round(m),
      change: round(change),
      p_value: Number(p.toPrecision(4)),
      runs: now.length,
      baseline_runs: before.length,
      regressed: p < SIGNIFICANCE && worseBy >= effect.min,
    });
  }
  return out;
}
