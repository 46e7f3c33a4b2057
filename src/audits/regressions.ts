/**
 * A run's regressions against its baseline (the audit's chosen run, else the previous completed
 * one): each page measured in both, its runs' lab figures tested per metric
 * (src/budgets/regression.ts). Grouped by metric, with both medians and the p-value per page,
 * as the run's summary and the `audit.regressed` webhook give them.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { compareRuns } from '../budgets/regression.ts';
import type { LabMetric } from '../budgets/lighthouse-map.ts';
import type { RunRegressions } from '../entities/audit.entity.ts';
import type { LabFigures } from '../reports/lab-samples.ts';

/** Each page's runs' lab figures, by URL, for the run's done pages with a report. */
async function samplesByUrl(em: EntityManager, runId: number): Promise<Map<string, LabFigures[]>> {
  const rows = await em.execute<Array<LabFigures & { url: string }>>(
    `select p.url, s.fcp, s.lcp, s.tbt, s.cls, s.score, s.bytes
       from audit_pages p join lab_samples s on s.report_id = p.report_id
      where p.run_id = ? and p.status = 'done' order by p.id, s.run`,
    [runId],
  );
  const out = new Map<string, LabFigures[]>();
  for (const { url, ...f } of rows) {
    const list = out.get(url) ?? [];
    list.push(f);
    out.set(url, list);
  }
  return out;
}

/** The run's regressions against `baselineRun`; null when no page could be tested. */
export async function regressionsOf(
  em: EntityManager,
  runId: number,
  baselineRun: number,
): Promise<RunRegressions | null> {
  const [now, before] = await Promise.all([samplesByUrl(em, runId), samplesByUrl(em, baselineRun)]);
  const byMetric = new Map<LabMetric, RunRegressions['metrics'][number]['pages']>();
  let tested = 0;
  for (const [url, runs] of now) {
    const base = before.get(url);
    if (!base) continue;
    const compared = compareRuns(runs, base);
    if (compared.length === 0) continue;
    tested++;
    for (const c of compared.filter((x) => x.regressed)) {
      const list = byMetric.get(c.metric) ?? [];
      list.push({ url, baseline_median: c.baseline_median, median: c.median, change: c.change, p_value: c.p_value });
      byMetric.set(c.metric, list);
    }
  }
  if (tested === 0) return null;
  return {
    baseline_run: baselineRun,
    pages: tested,
    metrics: [...byMetric].map(([metric, pages]) => ({ metric, pages })),
  };
}
