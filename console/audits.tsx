import { useState } from 'preact/hooks';
import { trpc, type Outputs } from './api.ts';
import { ErrorNotice, Notice, PageTitle, formatDate, useAction, useLoad } from './ui.tsx';

type Audit = Outputs['audits']['get']['data'];

/** The account's site audits: status, runs per page, budget and the latest run's verdicts (creation stays in the API: docs/audits.md). */
export function AuditsPage() {
  const { data, error } = useLoad(() => trpc.audits.list.query({ per_page: '100' }).then((r) => r.data), []);
  return (
    <>
      <PageTitle>Site audits</PageTitle>
      <ErrorNotice error={error} />
      {data && data.length === 0 && <p>No audits. Start one with POST /api/v1/audits.</p>}
      {data && data.length > 0 && (
        <div class="scroll" tabIndex={0} role="region" aria-label="Audits, scrollable">
          <table>
            <caption class="visually-hidden">Your site audits</caption>
            <thead>
              <tr>
                <th scope="col">Site</th>
                <th scope="col">Status</th>
                <th scope="col">Runs per page</th>
                <th scope="col">Budget</th>
                <th scope="col">Regressions</th>
              </tr>
            </thead>
            <tbody>
              {data.map((a) => (
                <tr key={a.id} data-testid={`audit-${a.id}`}>
                  <td>
                    <a href={`#/audits/${a.id}`}>{a.url}</a>
                  </td>
                  <td>{a.status}</td>
                  <td>{a.runs}</td>
                  <td>{budgetVerdict(a)}</td>
                  <td>{regressionVerdict(a)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function budgetVerdict(a: Pick<Audit, 'budget' | 'summary'>): string {
  if (a.budget.length === 0) return 'none';
  const b = a.summary?.budget;
  if (!b) return `${a.budget.length} group(s), not yet asserted`;
  return `${b.error_pages} of ${b.pages} page(s) failing, ${b.warning_pages} with warnings`;
}

function regressionVerdict(a: Pick<Audit, 'summary'>): string {
  const r = a.summary?.regressions;
  if (!r) return 'not tested';
  if (r.metrics.length === 0) return `none (${r.pages} page(s) against run ${r.baseline_run})`;
  return r.metrics.map((m) => `${m.metric} on ${m.pages.length} page(s)`).join(', ');
}

/** One audit: its budget (in Lighthouse CI's words) to edit, runs per page, baseline, and its pages' verdicts. */
export function AuditPage({ id }: { id: string }) {
  const { data, error, reload } = useLoad(() => trpc.audits.get.query({ id }).then((r) => r.data), [id]);
  return (
    <>
      <PageTitle>Site audit {data?.url ?? id}</PageTitle>
      <ErrorNotice error={error} />
      {data && <AuditDetails audit={data} onSaved={reload} />}
    </>
  );
}

function AuditDetails({ audit, onSaved }: { audit: Audit; onSaved: () => void }) {
  const [budget, setBudget] = useState(() =>
    audit.budget.length ? JSON.stringify(budgetForm(audit.budget), null, 2) : '',
  );
  const [runs, setRuns] = useState(String(audit.runs));
  const [baseline, setBaseline] = useState(audit.baseline_run_id ? String(audit.baseline_run_id) : '');
  const [saved, setSaved] = useState(false);
  const [invalid, setInvalid] = useState<string | null>(null);
  const save = useAction(async () => {
    setSaved(false);
    let parsed: unknown = null;
    if (budget.trim()) {
      try {
        parsed = JSON.parse(budget);
      } catch (err) {
        setInvalid(`The budget is not JSON: ${(err as Error).message}`);
        return;
      }
    }
    setInvalid(null);
    await trpc.audits.configure.mutate({
      id: String(audit.id),
      budget: parsed as never,
      runs: Number(runs),
      baseline_run: baseline ? Number(baseline) : null,
    });
    setSaved(true);
    onSaved();
  });
  return (
    <>
      <p>
        {audit.status}; latest run {audit.run_id ?? 'none'}; budget: {budgetVerdict(audit)}; regressions:{' '}
        {regressionVerdict(audit)}.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save.run();
        }}
      >
        <label for="audit-budget">
          Budget: a lighthouserc (<code>{'{"ci": {"assert": …}}'}</code>), its <code>assert</code> section, or{' '}
          <code>{'{"budgets": [{"path": "/blog/*", "assertions": …}]}'}</code>; empty removes it
        </label>
        <textarea id="audit-budget" rows={12} value={budget} onInput={(e) => setBudget(e.currentTarget.value)} />
        <label for="audit-runs">Runs per page</label>
        <input id="audit-runs" type="number" min={1} value={runs} onInput={(e) => setRuns(e.currentTarget.value)} />
        <label for="audit-baseline">Baseline run (empty: the previous completed run)</label>
        <input
          id="audit-baseline"
          type="number"
          min={1}
          value={baseline}
          onInput={(e) => setBaseline(e.currentTarget.value)}
        />
        <button type="submit" disabled={save.pending}>
          Save
        </button>
      </form>
      {invalid && <Notice kind="error">{invalid}</Notice>}
      <ErrorNotice error={save.error} />
      {saved && <Notice kind="ok">Saved; the next run uses it.</Notice>}
      <h2>Pages of the latest run</h2>
      <div class="scroll" tabIndex={0} role="region" aria-label="Pages, scrollable">
        <table>
          <caption class="visually-hidden">Pages of the latest run</caption>
          <thead>
            <tr>
              <th scope="col">Page</th>
              <th scope="col">Grade</th>
              <th scope="col">Budget</th>
            </tr>
          </thead>
          <tbody>
            {audit.pages.map((p) => (
              <tr key={p.url}>
                <td>
                  {p.report_id ? <a href={`#/reports/${p.report_id}`}>{p.url}</a> : p.url}
                  {p.error && <p>{p.error}</p>}
                </td>
                <td>{p.result ?? p.status}</td>
                <td>
                  {p.assertions
                    ? `${p.assertions.passed} passed, ${p.assertions.failed} failed, ${p.assertions.not_measured} not measured` +
                      (p.assertions.failing.length
                        ? `: ${p.assertions.failing.map((f) => `${f.key} (${f.level})`).join(', ')}`
                        : '')
                    : 'no budget'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p>Updated {formatDate(audit.updated_at)}.</p>
    </>
  );
}

/** Stored groups as a budget the service takes again: our form, or LHCI's assertMatrix when a group has a URL pattern. */
function budgetForm(groups: Audit['budget']) {
  const common = (g: Audit['budget'][number]) => ({
    ...(g.preset ? { preset: g.preset } : {}),
    ...(g.aggregation_method ? { aggregationMethod: g.aggregation_method } : {}),
    assertions: g.assertions,
  });
  if (groups.some((g) => g.url_pattern)) {
    return {
      assertMatrix: groups.map((g) => ({
        ...(g.url_pattern ? { matchingUrlPattern: g.url_pattern } : {}),
        ...common(g),
      })),
    };
  }
  return { budgets: groups.map((g) => ({ ...(g.path ? { path: g.path } : {}), ...common(g) })) };
}
