/**
 * What the CI command collects per URL, as the service's assert endpoint answers it
 * (`POST /api/v1/reports/{id}/assert`; routers/budget-schemas.ts), and the exit code it gives.
 */

export interface AssertionLine {
  url: string;
  key: string;
  check: string | null;
  level: 'warn' | 'error';
  name: 'minScore' | 'maxNumericValue' | 'maxLength';
  status: 'passed' | 'failed' | 'not_measured';
  operator: '>=' | '<=';
  expected: number;
  actual: number | null;
  values: number[];
  aggregationMethod: string;
  message?: string;
}

export interface RegressionLine {
  metric: string;
  baseline_median: number;
  median: number;
  change: number;
  p_value: number;
  regressed: boolean;
}

/** One URL asserted. */
export interface UrlOutcome {
  url: string;
  report_id: number;
  assertions: AssertionLine[];
  uncovered: string[];
  /** Against the baseline; null when there was none to test against. */
  regression: { baseline: string; metrics: RegressionLine[] } | null;
}

/** A failing assertion of level `error` (or one that could not be measured) fails the build. */
export const failsBuild = (a: AssertionLine) => a.level === 'error' && a.status !== 'passed';

/** 1 when an error assertion failed or a metric regressed significantly, else 0. */
export function exitCodeOf(outcomes: readonly UrlOutcome[]): 0 | 1 {
  const failed = outcomes.some(
    (o) => o.assertions.some(failsBuild) || (o.regression?.metrics.some((m) => m.regressed) ?? false),
  );
  return failed ? 1 : 0;
}
