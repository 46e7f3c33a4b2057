import { useState } from 'preact/hooks';
import { trpc, type Outputs } from './api.ts';
import { Chart } from './chart.tsx';
import { ErrorNotice, useLoad } from './ui.tsx';

type View = Outputs['analytics']['get']['data'];
type Range = View['range'];

const RANGES: Array<[Range, string]> = [
  ['hour', 'Last hour'],
  ['day', 'Last day'],
  ['month', 'Last 30 days'],
];

/** Colours with at least 4.5:1 contrast on white. */
const COLORS = { issued: '#1d4ed8', solved: '#047857', verified: '#6d28d9', refused: '#b91c1c' };
const REASONS: Record<keyof View['refused'], string> = {
  wrong_answer: 'Wrong answer',
  invalid_proof: 'Invalid proof',
  duplicate: 'Duplicate',
  expired: 'Expired',
  rate_limited: 'Rate-limited',
  remoteip_mismatch: 'Another network',
  below_minimum: 'Below the minimum score',
};

const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);

/**
 * What the challenges are doing, for all the user's sites or one (`sitekey`): a window
 * chooser, the timeline of issued, solved, verified and refused, the counts by kind and
 * reason, the work asked, the v3 score histogram and the busiest networks.
 */
export function Analytics(props: { sitekey?: string }) {
  const [range, setRange] = useState<Range>('hour');
  const { data, error, reload } = useLoad(
    () => trpc.analytics.get.query({ range, sitekey: props.sitekey }).then((r) => r.data),
    [range, props.sitekey],
  );
  return (
    <section class="analytics" aria-labelledby="analytics-title">
      <h2 id="analytics-title">What the challenges are doing</h2>
      <fieldset class="ranges">
        <legend>Window</legend>
        {RANGES.map(([value, label]) => (
          <label key={value}>
            <input type="radio" name="range" value={value} checked={range === value} onChange={() => setRange(value)} />{' '}
            {label}
          </label>
        ))}
        <button type="button" onClick={reload}>
          Refresh
        </button>
      </fieldset>
      <ErrorNotice error={error} />
      {data && <AnalyticsView view={data} />}
    </section>
  );
}

function AnalyticsView({ view }: { view: View }) {
  const x = view.timeline.map((p) => Date.parse(p.t) / 1000);
  const series = (['issued', 'solved', 'verified', 'refused'] as const).map((k) => ({
    label: k[0].toUpperCase() + k.slice(1),
    color: COLORS[k],
    values: view.timeline.map((p) => p[k]),
  }));
  const totals = {
    issued: sum(view.issued),
    solved: sum(view.solved),
    verified: sum(view.verified),
    refused: sum(view.refused),
  };
  return (
    <>
      <Chart
        kind="time"
        x={x}
        series={series}
        summary={`Challenges over time: ${totals.issued} issued, ${totals.solved} solved, ${totals.verified} verified, ${totals.refused} refused.`}
      />
      <div class="grid">
        <table data-testid="counts">
          <caption>Challenges by kind</caption>
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col">Issued</th>
              <th scope="col">Solved</th>
              <th scope="col">Verified</th>
            </tr>
          </thead>
          <tbody>
            {(['v1', 'v2', 'v3'] as const).map((k) => (
              <tr key={k}>
                <th scope="row">{k}</th>
                <td>{view.issued[k]}</td>
                <td>{view.solved[k]}</td>
                <td>{view.verified[k]}</td>
              </tr>
            ))}
            <tr>
              <th scope="row">All</th>
              <td data-testid="issued-total">{totals.issued}</td>
              <td data-testid="solved-total">{totals.solved}</td>
              <td data-testid="verified-total">{totals.verified}</td>
            </tr>
          </tbody>
        </table>
        <table>
          <caption>Refused, by reason</caption>
          <tbody>
            {Object.entries(REASONS).map(([k, label]) => (
              <tr key={k}>
                <th scope="row">{label}</th>
                <td>{view.refused[k as keyof View['refused']]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3>Work asked</h3>
      {view.work.length ? (
        <Chart
          kind="bars"
          x={view.work.map((_, i) => i)}
          categories={view.work.map((w) => `2^${w.bits}`)}
          series={[{ label: 'Challenges', color: COLORS.issued, values: view.work.map((w) => w.count) }]}
          summary={`Work asked: ${view.work.map((w) => `${w.count} at 2^${w.bits} attempts a puzzle`).join(', ')}.`}
          height={180}
        />
      ) : (
        <p>No work asked in this window.</p>
      )}
      <h3>Scores of verified tokens</h3>
      <Chart
        kind="bars"
        x={view.scores.map((_, i) => i)}
        categories={view.scores.map((s) => s.score)}
        series={[{ label: 'Tokens', color: COLORS.verified, values: view.scores.map((s) => s.count) }]}
        summary={`Verified scores: ${view.scores.map((s) => `${s.count} at ${s.score}`).join(', ')}.`}
        height={180}
      />
      <h3>Busiest networks</h3>
      {view.networks.length ? (
        <table>
          <caption class="visually-hidden">Networks issued the most challenges</caption>
          <thead>
            <tr>
              <th scope="col">Network</th>
              <th scope="col">Challenges</th>
            </tr>
          </thead>
          <tbody>
            {view.networks.map((n) => (
              <tr key={n.network}>
                <td>{n.network}</td>
                <td>{n.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p>No challenges issued in this window.</p>
      )}
      <p class="muted">
        From {new Date(view.from).toLocaleString()} to {new Date(view.to).toLocaleString()}, in steps of{' '}
        {view.step_seconds / 60} minutes. Counts reach the database within a few seconds.
      </p>
    </>
  );
}
