/**
 * Asserting a budget on one URL's measurement: the report (its representative run's results)
 * and each run's lab figures. Lighthouse CI's rules: a score-based assertion reads the audit's
 * 0-1 score (a rule axe found nothing to test on counts 1, as LHCI's notApplicable), `minScore`
 * 0.9 when an assertion gives no option; values over runs are aggregated by the assertion's
 * `aggregationMethod` (optimistic by default: the best run), `median-run` reads the
 * representative run. Only the lab metrics differ per run here: every other check is read from
 * the representative run, whatever the method. An assertion we cannot measure on this page
 * (an audit we do not have, a rendered check on a page not rendered) is `not_measured`, and
 * counts as failing at its level.
 */
import { accessibilityOutcome } from '../analyzer/checks/accessibility-rules.ts';
import { accessibilityOf } from '../reports/accessibility-category.ts';
import { median, metricScore, type LabFigures } from '../reports/lab-samples.ts';
import type { ReportResults, ResultEntry } from '../reports/results.ts';
import type { AggregationMethod, Assertion, Level } from './budget.ts';
import { metricChecks } from './lighthouse-map.ts';

export type AssertionKind = 'minScore' | 'maxNumericValue' | 'maxLength';

/** One assertion's outcome on one URL. */
export interface AssertionResult {
  url: string;
  key: string;
  /** Our check id (or `categories:<id>`) it was read from; null when we do not measure it. */
  check: string | null;
  level: Exclude<Level, 'off'>;
  name: AssertionKind;
  status: 'passed' | 'failed' | 'not_measured';
  operator: '>=' | '<=';
  expected: number;
  /** The aggregated value; null when not measured. */
  actual: number | null;
  /** The value of each run it aggregated. */
  values: number[];
  aggregationMethod: AggregationMethod;
  message?: string;
}

/** What a URL's measurement gives an assertion. */
export interface Measurement {
  url: string;
  results: ReportResults;
  /** Each run's lab figures (empty for a report not rendered). */
  runs: LabFigures[];
}

interface Read {
  score: number | null;
  numeric: number | null;
  length: number | null;
}

function readEntry(id: string, entry: ResultEntry): Read {
  if (entry.category === 'accessibility') {
    const v = entry.value as { nodes?: number };
    const outcome = accessibilityOutcome({ id, ...entry });
    return { score: outcome === 'failed' ? 0 : 1, numeric: null, length: typeof v?.nodes === 'number' ? v.nodes : 0 };
  }
  const value = entry.value;
  const numeric =
    typeof value === 'number'
      ? value
      : value && typeof value === 'object' && 'ms' in value
        ? Number((value as { ms: number }).ms)
        : null;
  return { score: entry.passed ? 1 : 0, numeric, length: Array.isArray(entry.details) ? entry.details.length : 0 };
}

function aggregate(values: number[], method: AggregationMethod, kind: AssertionKind): number {
  if (method === 'median') return median(values);
  const useMin = (method === 'optimistic') === kind.startsWith('max');
  return useMin ? Math.min(...values) : Math.max(...values);
}

const rendered = (results: ReportResults) => Object.values(results).some((e) => e.rendered === true);

/** The per-run values of an assertion kind, or why there are none. */
function valuesOf(a: Assertion, kind: AssertionKind, m: Measurement): number[] | string {
  const t = a.target;
  if (!t) return `"${a.key}" is not an audit this service measures.`;
  if (t.kind === 'category') {
    if (kind !== 'minScore') return `A category has a score only (minScore).`;
    if (t.category === 'performance') {
      const scores = m.runs.map((r) => r.score).filter((s): s is number => s !== null);
      if (scores.length === 0) return 'The performance category needs rendering (render=1).';
      return a.aggregationMethod === 'median-run'
        ? [numberOrNaN(m.results['lab_performance_score']) / 100]
        : scores.map((s) => s / 100);
    }
    const summary = accessibilityOf(m.results);
    if (summary.status !== 'measured') {
      return summary.status === 'needs_rendering'
        ? 'The accessibility category needs rendering (render=1).'
        : 'The accessibility category was not measured (axe could not run).';
    }
    return summary.score === null ? [1] : [summary.score / 100];
  }
  const metric = t.metric;
  if (metric && m.runs.length > 0 && a.aggregationMethod !== 'median-run' && kind !== 'maxLength') {
    const values = m.runs.map((r) => r[metric]).filter((v): v is number => v !== null);
    if (values.length === 0) return `No run recorded ${t.check}.`;
    return kind === 'minScore' ? values.map((v) => metricScore(metric, v)) : values;
  }
  const entry = m.results[t.check];
  if (!entry) {
    return rendered(m.results) || !isRenderedCheck(t.check)
      ? `The report has no ${t.check} check.`
      : `${t.check} needs rendering (render=1).`;
  }
  const read = readEntry(t.check, entry);
  if (kind === 'minScore' && metric && read.numeric !== null) return [metricScore(metric, read.numeric)];
  const v = kind === 'minScore' ? read.score : kind === 'maxNumericValue' ? read.numeric : read.length;
  return v === null ? `${t.check} has no ${kind === 'maxNumericValue' ? 'numeric value' : 'value'}.` : [v];
}

const numberOrNaN = (e: ResultEntry | undefined) => (typeof e?.value === 'number' ? e.value : NaN);
const renderedOnly = new Set(
  Object.values(metricChecks).concat([
    'render_blocking_resources',
    'oversized_images',
    'offscreen_images',
    'console_errors',
  ]),
);
const isRenderedCheck = (id: string) => renderedOnly.has(id) || id.startsWith('a11y_');

/** Every non-off assertion of `assertions` on one URL. */
export function evaluateAssertions(assertions: readonly Assertion[], m: Measurement): AssertionResult[] {
  const out: AssertionResult[] = [];
  for (const a of assertions) {
    if (a.level === 'off') continue;
    const kinds: Array<[AssertionKind, number]> = [];
    if (a.maxLength !== undefined) kinds.push(['maxLength', a.maxLength]);
    if (a.maxNumericValue !== undefined) kinds.push(['maxNumericValue', a.maxNumericValue]);
    const minScore = a.minScore ?? (kinds.length === 0 ? 0.9 : undefined);
    if (minScore !== undefined) kinds.push(['minScore', minScore]);
    const check = a.target ? (a.target.kind === 'category' ? `categories:${a.target.category}` : a.target.check) : null;
    for (const [name, expected] of kinds) {
      const operator = name === 'minScore' ? '>=' : '<=';
      const base = {
        url: m.url,
        key: a.key,
        check,
        level: a.level,
        name,
        operator,
        expected,
        aggregationMethod: a.aggregationMethod,
      } as const;
      const values = valuesOf(a, name, m);
      if (typeof values === 'string') {
        out.push({ ...base, status: 'not_measured', actual: null, values: [], message: values });
        continue;
      }
      const actual = aggregate(values, a.aggregationMethod, name);
      const passed = operator === '>=' ? actual >= expected : actual <= expected;
      out.push({ ...base, status: passed ? 'passed' : 'failed', actual, values });
    }
  }
  return out;
}

/**
 * True when an `error` assertion failed or could not be measured (the CLI's exit 1). The unit
 * tests' reading of a result list; tagged for knip's production mode.
 * @internal
 */
export function failsBuild(results: readonly AssertionResult[]): boolean {
  return results.some((r) => r.level === 'error' && r.status !== 'passed');
}
