/**
 * An audit's budget (src/budgets/budget.ts), stored as its groups (table `audit_budgets`),
 * asserted on each page as it is settled; and the budget's outcome over a run for its summary.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AuditBudgetSchema } from '../entities/audit-budget.entity.ts';
import type { PageAssertions, RunBudget } from '../entities/audit.entity.ts';
import { assertMeasurement } from '../budgets/assert-report.ts';
import type { StoredBudgetGroup } from '../budgets/budget.ts';
import type { LabFigures } from '../reports/lab-samples.ts';
import type { ReportResults } from '../reports/results.ts';

/** Replaces the audit's budget (in `tx`); an empty list removes it. */
export async function storeBudget(tx: EntityManager, auditId: number, groups: readonly StoredBudgetGroup[]) {
  await tx.nativeDelete(AuditBudgetSchema, { audit: auditId });
  for (const [position, g] of groups.entries()) {
    tx.create(AuditBudgetSchema, {
      audit: auditId,
      position,
      path: g.path,
      urlPattern: g.url_pattern,
      preset: g.preset,
      aggregationMethod: g.aggregation_method,
      assertions: g.assertions,
    });
  }
  await tx.flush();
}

/** The audit's budget groups, in order (empty: no budget). */
export async function budgetOf(em: EntityManager, auditId: number): Promise<StoredBudgetGroup[]> {
  return (await budgetsOf(em, [auditId])).get(auditId) ?? [];
}

/** The budgets of several audits by audit id, in one statement (an audit without one is absent). */
export async function budgetsOf(em: EntityManager, auditIds: number[]): Promise<Map<number, StoredBudgetGroup[]>> {
  const byAudit = new Map<number, StoredBudgetGroup[]>();
  if (auditIds.length === 0) return byAudit;
  const rows = await em.find(
    AuditBudgetSchema,
    { audit: { $in: auditIds } },
    { orderBy: { audit: 'asc', position: 'asc' } },
  );
  for (const r of rows) {
    const groups = byAudit.get(r.audit.id) ?? [];
    groups.push({
      path: r.path ?? null,
      url_pattern: r.urlPattern ?? null,
      preset: r.preset ?? null,
      aggregation_method: r.aggregationMethod ?? null,
      assertions: r.assertions,
    });
    byAudit.set(r.audit.id, groups);
  }
  return byAudit;
}

/** A page's budget outcome; null when the audit has no budget (or none of it applies to the page). */
export function assertPage(
  groups: readonly StoredBudgetGroup[],
  m: { url: string; results: ReportResults; runs: LabFigures[] },
): PageAssertions | null {
  if (groups.length === 0) return null;
  const { assertions } = assertMeasurement(groups, m);
  if (assertions.length === 0) return null;
  const failing = assertions.filter((a) => a.status !== 'passed');
  return {
    passed: assertions.length - failing.length,
    failed: failing.filter((a) => a.status === 'failed').length,
    not_measured: failing.filter((a) => a.status === 'not_measured').length,
    failing: failing.slice(0, 50).map((a) => ({
      key: a.key,
      level: a.level,
      status: a.status as 'failed' | 'not_measured',
      actual: a.actual,
      expected: a.expected,
      name: a.name,
    })),
  };
}

export function summarizeBudget(pages: ReadonlyArray<{ assertions?: PageAssertions | null }>): RunBudget | null {
  const asserted = pages.filter((p) => p.assertions);
  if (asserted.length === 0) return null;
  const counts = new Map<string, { key: string; level: 'warn' | 'error'; pages: number }>();
  let errorPages = 0;
  let warningPages = 0;
  for (const p of asserted) {
    const failing = p.assertions!.failing;
    if (failing.some((f) => f.level === 'error')) errorPages++;
    else if (failing.length) warningPages++;
    for (const f of new Map(failing.map((x) => [`${x.level} ${x.key}`, x])).values()) {
      const k = `${f.level} ${f.key}`;
      const c = counts.get(k) ?? { key: f.key, level: f.level, pages: 0 };
      c.pages++;
      counts.set(k, c);
    }
  }
  return {
    pages: asserted.length,
    error_pages: errorPages,
    warning_pages: warningPages,
    top_failing: [...counts.values()].sort((a, b) => b.pages - a.pages || a.key.localeCompare(b.key)).slice(0, 10),
  };
}
