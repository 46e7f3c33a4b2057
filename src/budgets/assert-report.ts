/**
 * A budget asserted on one stored report, and its runs tested against a baseline: what
 * `POST /api/v1/reports/{id}/assert` answers and the CLI prints. The baseline is a report
 * (its id), or `last`: the caller's newest earlier report of the same address with lab runs.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ReportSchema } from '../entities/report.entity.ts';
import { notFound } from '../errors.ts';
import type { LabFigures } from '../reports/lab-samples.ts';
import { getReport, labSamplesOf } from '../reports/reports.ts';
import type { ReportResults } from '../reports/results.ts';
import { compileGroup, type StoredBudgetGroup } from './budget.ts';
import { evaluateAssertions, type AssertionResult } from './evaluate.ts';
import { compareRuns, type MetricComparison } from './regression.ts';

export interface ReportAssertion {
  report_id: number;
  url: string;
  assertions: AssertionResult[];
  /** Preset audits we do not measure, so not asserted. */
  uncovered: string[];
  regression: { baseline_report_id: number; metrics: MetricComparison[]; regressed: boolean } | null;
}

/** Asserts the groups that apply to the report's address (every group without a path or pattern). */
export function assertMeasurement(
  groups: readonly StoredBudgetGroup[],
  m: { url: string; results: ReportResults; runs: LabFigures[] },
): { assertions: AssertionResult[]; uncovered: string[] } {
  const url = new URL(m.url);
  const assertions: AssertionResult[] = [];
  const uncovered = new Set<string>();
  for (const g of groups.map(compileGroup)) {
    if (!g.matches(url)) continue;
    assertions.push(...evaluateAssertions(g.assertions, m));
    for (const id of g.uncovered) uncovered.add(id);
  }
  return { assertions, uncovered: [...uncovered] };
}

async function baselineOf(
  em: EntityManager,
  userId: number,
  report: { id: number; fullUrl: string },
  baseline: number | 'last',
): Promise<number | undefined> {
  if (baseline !== 'last') {
    await getReport(em, userId, baseline); // another account's report is not found
    return baseline;
  }
  const [row] = await em.execute<Array<{ id: number }>>(
    `select r.id from reports r where r.user_id = ? and r.full_url = ? and r.id < ?
       and exists (select 1 from lab_samples s where s.report_id = r.id)
     order by r.id desc limit 1`,
    [userId, report.fullUrl, report.id],
  );
  return row?.id;
}

/** The report's budget outcome and, with `baseline`, its regression test. */
export async function assertReport(
  em: EntityManager,
  userId: number,
  id: number,
  groups: readonly StoredBudgetGroup[],
  baseline?: number | 'last',
): Promise<ReportAssertion> {
  const report = await em.findOne(ReportSchema, { id, user: userId });
  if (!report) throw notFound('Report');
  const runs = await labSamplesOf(em, id);
  const { assertions, uncovered } = assertMeasurement(groups, {
    url: report.fullUrl,
    results: report.results as ReportResults,
    runs,
  });
  let regression: ReportAssertion['regression'] = null;
  if (baseline !== undefined) {
    const baselineId = await baselineOf(em, userId, report, baseline);
    if (baselineId !== undefined) {
      const metrics = compareRuns(runs, await labSamplesOf(em, baselineId));
      regression = { baseline_report_id: baselineId, metrics, regressed: metrics.some((c) => c.regressed) };
    }
  }
  return { report_id: id, url: report.fullUrl, assertions, uncovered, regression };
}
