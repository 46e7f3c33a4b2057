/**
 * A report's lab figures per run. A report (or an audit page) measured N times keeps each
 * run's figures (table `lab_samples`) and, on the report, their median and spread
 * (`lab_stats`): what budgets aggregate and what regressions are tested on.
 */
import { logNormalScore, labCurves } from '../analyzer/render/lab.ts';
import type { LabMetric, LabStats } from '../entities/report.entity.ts';
import type { ReportResults } from './results.ts';

/** One run's lab figures; null where the run did not record it. */
export type LabFigures = Record<LabMetric, number | null>;

export const labMetrics: readonly LabMetric[] = ['fcp', 'lcp', 'tbt', 'cls', 'score', 'bytes'];

const numberOf = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const msOf = (v: unknown): number | null => (v !== null && typeof v === 'object' && 'ms' in v ? numberOf(v.ms) : null);

/** The lab figures of one analysis; null when it was not rendered (no lab checks). */
export function labFiguresOf(results: ReportResults): LabFigures | null {
  if (!results['lab_performance_score'] && !results['first_contentful_paint']) return null;
  return {
    fcp: msOf(results['first_contentful_paint']?.value),
    lcp: msOf(results['largest_contentful_paint']?.value),
    tbt: msOf(results['total_blocking_time']?.value),
    cls: numberOf(results['cumulative_layout_shift']?.value),
    score: numberOf(results['lab_performance_score']?.value),
    bytes: numberOf(results['total_byte_weight']?.value),
  };
}

/** The quantile `q` of sorted `values`, linearly interpolated (R's type 7, numpy's default). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

export const median = (values: readonly number[]): number =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

/** Median and spread per metric over `runs`. */
export function labStatsOf(runs: readonly LabFigures[]): LabStats {
  const out: LabStats = {};
  for (const m of labMetrics) {
    const values = runs
      .map((r) => r[m])
      .filter((v): v is number => v !== null)
      .sort((a, b) => a - b);
    if (values.length === 0) continue;
    const round = (n: number) => Math.round(n * 1000) / 1000;
    out[m] = {
      runs: values.length,
      median: round(quantile(values, 0.5)),
      min: values[0],
      max: values[values.length - 1],
      iqr: round(quantile(values, 0.75) - quantile(values, 0.25)),
    };
  }
  return out;
}

/**
 * The run a report keeps as its results: Lighthouse CI's representative ("median") run, the
 * run whose lab score is nearest the median of the runs' scores (FCP and LCP break ties, as
 * LHCI's computeRepresentativeRuns); the first run when none was rendered.
 */
export function representativeRun(runs: readonly (LabFigures | null)[]): number {
  const scored = runs.map((r, i) => ({ i, r })).filter((x) => x.r?.score != null);
  if (scored.length === 0) return 0;
  const mid = median(scored.map((x) => x.r!.score!));
  const midFcp = median(scored.map((x) => x.r!.fcp ?? 0));
  const midLcp = median(scored.map((x) => x.r!.lcp ?? 0));
  const distance = (r: LabFigures) =>
    Math.abs(r.score! - mid) * 1e6 + Math.abs((r.fcp ?? 0) - midFcp) + Math.abs((r.lcp ?? 0) - midLcp);
  return scored.reduce((best, x) => (distance(x.r!) < distance(best.r!) ? x : best)).i;
}

/** Lighthouse's 0-1 score of a metric value, as an assertion's minScore reads it. */
export function metricScore(metric: LabMetric, value: number): number {
  if (metric === 'score') return value / 100;
  return logNormalScore(labCurves[metric], value);
}
