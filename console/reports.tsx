import { useEffect, useState } from 'preact/hooks';
import { trpc, type Outputs } from './api.ts';
import { ConfirmButton, ErrorNotice, Notice, PageTitle, formatDate, useAction, useLoad } from './ui.tsx';
import { navigate, type Place } from './router.ts';

type Report = Outputs['reports']['get']['data'];
type Privacy = '0' | '1' | '2';

const PRIVACY: Record<Privacy, string> = {
  '0': 'Public (anyone with the link)',
  '1': 'Private (only you)',
  '2': 'Password (anyone with the link and the password)',
};
const CATEGORIES = ['seo', 'performance', 'security', 'miscellaneous'] as const;
const CATEGORY_NAMES: Record<(typeof CATEGORIES)[number], string> = {
  seo: 'SEO',
  performance: 'Performance',
  security: 'Security',
  miscellaneous: 'Miscellaneous',
};

/** Seconds since `since`, ticking while `on`: the visible progress of an analysis. */
function useElapsed(on: boolean): number {
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    if (!on) return;
    const started = Date.now();
    setSeconds(0);
    const timer = setInterval(() => setSeconds(Math.floor((Date.now() - started) / 1000)), 1000);
    return () => clearInterval(timer);
  }, [on]);
  return seconds;
}

/** Progress while the service fetches, renders and checks a page (rendered pages take seconds). */
function Analysing(props: { on: boolean; what: string }) {
  const seconds = useElapsed(props.on);
  if (!props.on) return null;
  return (
    <div class="progress" role="status" aria-live="polite">
      <progress aria-label={props.what} />
      <span>
        {props.what}… {seconds} s
      </span>
    </div>
  );
}

function PrivacyFields(props: {
  privacy: Privacy;
  password: string;
  onPrivacy: (p: Privacy) => void;
  onPassword: (p: string) => void;
}) {
  return (
    <>
      <label>
        Privacy
        <select value={props.privacy} onChange={(e) => props.onPrivacy(e.currentTarget.value as Privacy)}>
          {Object.entries(PRIVACY).map(([v, label]) => (
            <option key={v} value={v}>
              {label}
            </option>
          ))}
        </select>
      </label>
      {props.privacy === '2' && (
        <label>
          Password
          <input
            type="password"
            required
            maxLength={200}
            autoComplete="new-password"
            value={props.password}
            onInput={(e) => props.onPassword(e.currentTarget.value)}
          />
        </label>
      )}
    </>
  );
}

/** Reports: the API's search, filters, sort and pages, and a form that creates one with progress. */
export function ReportsPage({ place }: { place: Place }) {
  const q = place.query;
  const [search, setSearch] = useState(q.get('search') ?? '');
  const [project, setProject] = useState(q.get('project') ?? '');
  const [result, setResult] = useState(q.get('result') ?? '');
  const [sort, setSort] = useState(q.get('sort') ?? 'id:desc');
  const [page, setPage] = useState(1);
  const [applied, setApplied] = useState({ search, project, result, sort });
  const { data, error } = useLoad(() => {
    const [sortBy, direction] = applied.sort.split(':');
    return trpc.reports.list.query({
      search: applied.search || undefined,
      project: applied.project || undefined,
      result: applied.result || undefined,
      sort_by: sortBy,
      sort: direction,
      per_page: '25',
      page,
    });
  }, [applied, page]);
  const [url, setUrl] = useState('');
  const [privacy, setPrivacy] = useState<Privacy>('1');
  const [password, setPassword] = useState('');
  const [render, setRender] = useState(false);
  const create = useAction(async (e: Event) => {
    e.preventDefault();
    const { data: report } = await trpc.reports.create.mutate({
      url,
      privacy,
      password: privacy === '2' ? password : undefined,
      render: render ? '1' : undefined,
    });
    navigate(`#/reports/${report.id}`);
  });
  return (
    <>
      <PageTitle>Reports</PageTitle>
      <h2>Create a report</h2>
      <form onSubmit={(e) => void create.run(e)}>
        <label>
          Page address
          <input
            type="url"
            required
            placeholder="https://example.com/"
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
        </label>
        <PrivacyFields privacy={privacy} password={password} onPrivacy={setPrivacy} onPassword={setPassword} />
        <label class="inline">
          <input type="checkbox" checked={render} onChange={(e) => setRender(e.currentTarget.checked)} /> Render in
          Chromium (lab measurements and accessibility; takes seconds)
        </label>
        <button type="submit" disabled={create.pending}>
          Create report
        </button>
      </form>
      <Analysing on={create.pending} what="Analysing the page" />
      <ErrorNotice error={create.error} />
      <h2>Your reports</h2>
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setApplied({ search, project, result, sort });
        }}
      >
        <label>
          Search addresses
          <input type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        </label>
        <label>
          Project
          <input value={project} onInput={(e) => setProject(e.currentTarget.value)} />
        </label>
        <label>
          Grade
          <select value={result} onChange={(e) => setResult(e.currentTarget.value)}>
            <option value="">Any</option>
            <option value="good">Good</option>
            <option value="decent">Decent</option>
            <option value="bad">Bad</option>
          </select>
        </label>
        <label>
          Sort
          <select value={sort} onChange={(e) => setSort(e.currentTarget.value)}>
            <option value="id:desc">Newest first</option>
            <option value="id:asc">Oldest first</option>
            <option value="url:asc">Address A-Z</option>
            <option value="result:asc">Grade</option>
            <option value="generated_at:desc">Last analysed</option>
          </select>
        </label>
        <button type="submit">Apply</button>
      </form>
      <ErrorNotice error={error} />
      {data && data.data.length === 0 && <p>No reports match.</p>}
      {data && data.data.length > 0 && (
        <>
          <div class="scroll" tabIndex={0} role="region" aria-label="Reports, scrollable">
            <table>
              <caption class="visually-hidden">Reports</caption>
              <thead>
                <tr>
                  <th scope="col">Address</th>
                  <th scope="col">Project</th>
                  <th scope="col">Score</th>
                  <th scope="col">Grade</th>
                  <th scope="col">Analysed</th>
                </tr>
              </thead>
              <tbody>
                {data.data.map((r) => (
                  <tr key={r.id}>
                    <td>
                      <a href={`#/reports/${r.id}`}>{r.url}</a>
                    </td>
                    <td>{r.project}</td>
                    <td>{r.score}</td>
                    <td>
                      <span class={`grade grade-${r.result}`}>{r.result}</span>
                    </td>
                    <td>{formatDate(r.generated_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={data.meta.current_page} last={data.meta.last_page} total={data.meta.total} onPage={setPage} />
        </>
      )}
    </>
  );
}

export function Pager(props: { page: number; last: number; total: number; onPage: (p: number) => void }) {
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>
        Previous
      </button>
      <span>
        Page {props.page} of {props.last} ({props.total} in all)
      </span>
      <button type="button" disabled={props.page >= props.last} onClick={() => props.onPage(props.page + 1)}>
        Next
      </button>
    </nav>
  );
}

const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** One report: checks by category, lab measurements, privacy, re-analysis, share link, deletion. */
export function ReportPage(props: { id: string }) {
  const { data, error, reload } = useLoad(
    () => trpc.reports.get.query({ id: props.id }).then((r) => r.data),
    [props.id],
  );
  if (error) return <ErrorNotice error={error} />;
  if (!data) return <p role="status">Loading…</p>;
  return <ReportView report={data} onChange={reload} />;
}

function ReportView({ report, onChange }: { report: Report; onChange: () => void }) {
  const [privacy, setPrivacy] = useState(String(report.privacy) as Privacy);
  const [password, setPassword] = useState('');
  const [saved, setSaved] = useState(false);
  const update = useAction(async (e: Event) => {
    e.preventDefault();
    setSaved(false);
    await trpc.reports.update.mutate({
      id: String(report.id),
      privacy,
      password: privacy === '2' ? password : undefined,
    });
    setSaved(true);
    onChange();
  });
  const reanalyse = useAction(async () => {
    await trpc.reports.update.mutate({ id: String(report.id), results: '1' });
    onChange();
  });
  const remove = useAction(async () => {
    await trpc.reports.delete.mutate({ id: String(report.id) });
    navigate('#/reports');
  });
  const checks = Object.entries(report.results);
  const lab = checks.filter(([, c]) => c.rendered && c.category !== 'accessibility');
  return (
    <>
      <PageTitle>{report.url}</PageTitle>
      <p class="score">
        Score <strong>{report.score}</strong> · grade{' '}
        <span class={`grade grade-${report.result}`}>{report.result}</span> · project{' '}
        <a href={`#/reports?project=${encodeURIComponent(report.project)}`}>{report.project}</a> · analysed{' '}
        {formatDate(report.generated_at)}
      </p>
      <p>
        Share link:{' '}
        <a href={report.share_url} data-testid="share-link">
          {new URL(report.share_url, location.origin).href}
        </a>{' '}
        {report.privacy === 1 ? '(private: nobody else can open it until you share it)' : ''}
      </p>
      <h2>Privacy</h2>
      <form onSubmit={(e) => void update.run(e)}>
        <PrivacyFields privacy={privacy} password={password} onPrivacy={setPrivacy} onPassword={setPassword} />
        <button type="submit" disabled={update.pending}>
          Save privacy
        </button>
      </form>
      <ErrorNotice error={update.error} />
      {saved && <Notice kind="ok">Privacy saved.</Notice>}
      <h2>Analysis</h2>
      <button type="button" onClick={() => void reanalyse.run()} disabled={reanalyse.pending}>
        Re-analyse
      </button>
      <Analysing on={reanalyse.pending} what="Analysing the page again" />
      <ErrorNotice error={reanalyse.error} />
      {lab.length > 0 && (
        <>
          <h2>Lab measurements</h2>
          <CheckTable caption="Measured in Chromium" checks={lab} />
        </>
      )}
      <Accessibility checks={checks} />
      {CATEGORIES.map((cat) => {
        const inCat = checks.filter(([, c]) => c.category === cat && !c.rendered);
        return inCat.length ? (
          <section key={cat}>
            <h2>{CATEGORY_NAMES[cat]}</h2>
            <CheckTable
              caption={`${CATEGORY_NAMES[cat]}: ${inCat.filter(([, c]) => c.passed).length} of ${inCat.length} passed`}
              checks={inCat}
            />
          </section>
        ) : null;
      })}
      <h2>Delete</h2>
      <ConfirmButton
        label="Delete report"
        confirm="Delete this report? Its share link stops working."
        onConfirm={() => remove.run()}
      />
      <ErrorNotice error={remove.error} />
    </>
  );
}

type Entry = [string, Report['results'][string]];
interface A11yValue {
  outcome: 'passed' | 'failed' | 'needs_review' | 'not_applicable';
  impact: string | null;
  nodes: number;
  weight: number;
}
interface A11yNode {
  selector: string;
  snippet: string;
  why: string;
}
const a11yValue = (c: Report['results'][string]): A11yValue => c.value as A11yValue;

/**
 * The accessibility category (docs/reports.md): its own score (Lighthouse's weighted mean of
 * the rules that apply, needs review counting as passing), failures heaviest first with their
 * elements, then what axe could not decide; or why there is none.
 */
function Accessibility({ checks }: { checks: Entry[] }) {
  const rules = checks.filter(([, c]) => c.category === 'accessibility');
  if (rules.length === 0) {
    const rendered = checks.some(([, c]) => c.rendered);
    return (
      <section>
        <h2>Accessibility</h2>
        <p data-testid="a11y-status">
          {rendered
            ? 'Not measured: the page was rendered, but the accessibility checks could not run in the time it had.'
            : 'Needs rendering: accessibility is checked in a browser. Re-analyse with rendering (render=1) to see it.'}
        </p>
      </section>
    );
  }
  const applicable = rules.filter(([, c]) => a11yValue(c).outcome !== 'not_applicable');
  const total = applicable.reduce((n, [, c]) => n + a11yValue(c).weight, 0);
  const earned = applicable.reduce((n, [, c]) => n + (c.passed ? a11yValue(c).weight : 0), 0);
  const failed = rules.filter(([, c]) => !c.passed).sort(([, a], [, b]) => a11yValue(b).weight - a11yValue(a).weight);
  const review = rules.filter(([, c]) => a11yValue(c).outcome === 'needs_review');
  return (
    <section>
      <h2>Accessibility</h2>
      <p class="score" data-testid="a11y-status">
        Accessibility score <strong>{total > 0 ? Math.round((100 * earned) / total) : 'n/a'}</strong> (its own score,
        not part of the report's) · {failed.length} failed · {review.length} to review
      </p>
      {failed.length > 0 && <A11yTable caption="Failed, heaviest first" rules={failed} />}
      {review.length > 0 && <A11yTable caption="Needs review (not counted as failures)" rules={review} />}
    </section>
  );
}

function A11yTable(props: { caption: string; rules: Entry[] }) {
  return (
    <div class="scroll" tabIndex={0} role="region" aria-label={`${props.caption}, scrollable`}>
      <table class="checks">
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">Rule</th>
            <th scope="col">Impact</th>
            <th scope="col">Weight</th>
            <th scope="col">Elements</th>
          </tr>
        </thead>
        <tbody>
          {props.rules.map(([id, c]) => (
            <tr key={id}>
              <th scope="row">{id.replace(/^a11y_/, '').replace(/_/g, ' ')}</th>
              <td>{a11yValue(c).impact ?? ''}</td>
              <td>{a11yValue(c).weight}</td>
              <td class="details">
                <ul>
                  {(c.details as A11yNode[]).slice(0, 5).map((n, i) => (
                    <li key={i}>
                      <code>{String(n.selector).slice(0, 300)}</code> {String(n.why).slice(0, 300)}
                    </li>
                  ))}
                </ul>
                {a11yValue(c).nodes > c.details.length && <span>and {a11yValue(c).nodes - c.details.length} more</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function CheckTable(props: { caption: string; checks: Array<[string, Report['results'][string]]> }) {
  return (
    <div class="scroll" tabIndex={0} role="region" aria-label={`${props.caption}, scrollable`}>
      <table class="checks">
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">Check</th>
            <th scope="col">Result</th>
            <th scope="col">Importance</th>
            <th scope="col">Value and details</th>
          </tr>
        </thead>
        <tbody>
          {props.checks.map(([id, c]) => (
            <tr key={id}>
              <th scope="row">{id.replace(/_/g, ' ')}</th>
              <td class={c.passed ? 'pass' : 'fail'}>{c.passed ? 'Passed' : 'Failed'}</td>
              <td>{c.importance}</td>
              <td class="details">
                {c.value !== null && c.value !== undefined && <div>{show(c.value).slice(0, 300)}</div>}
                {c.details.length > 0 && (
                  <details>
                    <summary>{c.details.length} details</summary>
                    <ul>
                      {c.details.slice(0, 50).map((d, i) => (
                        <li key={i}>{show(d).slice(0, 300)}</li>
                      ))}
                    </ul>
                  </details>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
