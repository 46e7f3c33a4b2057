import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../errors.ts';
import type { RefusalReason } from './counter.ts';

/** The console's windows: the last hour by minute, the last day by half hour, the last 30 days by day. */
export const ANALYTICS_RANGES = {
  hour: { spanMs: 3_600_000, stepMs: 60_000 },
  day: { spanMs: 86_400_000, stepMs: 1_800_000 },
  month: { spanMs: 30 * 86_400_000, stepMs: 86_400_000 },
} as const;

export type AnalyticsRange = keyof typeof ANALYTICS_RANGES;

const KINDS = ['v1', 'v2', 'v3'] as const;
const REASONS: RefusalReason[] = [
  'wrong_answer',
  'invalid_proof',
  'duplicate',
  'expired',
  'rate_limited',
  'remoteip_mismatch',
];
const TIMELINE = ['issued', 'solved', 'verified', 'refused'] as const;

type PerKind = Record<(typeof KINDS)[number], number>;

/** One window of a user's (or one of their sites') challenge analytics. */
export interface AnalyticsView {
  range: AnalyticsRange;
  sitekey: string | null;
  from: string;
  to: string;
  step_seconds: number;
  /** One point per step, oldest first, every step present (zeros included). */
  timeline: Array<{ t: string; issued: number; solved: number; verified: number; refused: number }>;
  issued: PerKind;
  solved: PerKind;
  verified: PerKind;
  refused: Record<RefusalReason, number>;
  /** The work asked: how many challenges asked for 2^bits expected hashes. */
  work: Array<{ bits: number; count: number }>;
  /** Verified scores by tenth (`0.0` .. `0.9`), all ten present. */
  scores: Array<{ score: string; count: number }>;
  /** The ten networks that were issued the most challenges. */
  networks: Array<{ network: string; count: number }>;
}

type Row = { t: Date | string; metric: string; label: string; n: number | string };

const execute = <T>(em: EntityManager, sql: string, params: unknown[]) =>
  em.getConnection().execute<T[]>(sql, params, 'all', em.getTransactionContext());

/**
 * The analytics of `ownerId`'s sites (all of them, or `sitekey` alone: 404 unless it is
 * theirs) over `range` ending at `now`: two statements over `challenge_stats` joined to the
 * owner's sites, so one user never reads another's counts. Counts still in an instance's
 * memory (at most ANALYTICS_FLUSH_MS old) are not in it yet.
 */
export async function readAnalytics(
  em: EntityManager,
  ownerId: number,
  opts: { range: AnalyticsRange; sitekey?: string; now?: number },
): Promise<AnalyticsView> {
  const { spanMs, stepMs } = ANALYTICS_RANGES[opts.range];
  const now = opts.now ?? Date.now();
  const end = now - (now % stepMs) + stepMs;
  const start = end - spanMs;
  if (opts.sitekey) {
    const own = await execute(em, 'select 1 from sites where sitekey = ? and owner_id = ?', [opts.sitekey, ownerId]);
    if (!own.length) throw notFound('Site');
  }
  const site = opts.sitekey ? 'and s.sitekey = ?' : '';
  const params = (...head: unknown[]) => [...head, ownerId, new Date(start), ...(opts.sitekey ? [opts.sitekey] : [])];
  const rows = await execute<Row>(
    em,
    `select date_bin(?::interval, s.bucket, timestamptz '2000-01-01T00:00:00Z') as t, s.metric, s.label, sum(s.count) as n
       from challenge_stats s join sites on sites.sitekey = s.sitekey
      where sites.owner_id = ? and s.bucket >= ? ${site} and s.metric <> 'network'
      group by 1, 2, 3`,
    params(`${stepMs / 1000} seconds`),
  );
  const networks = await execute<{ label: string; n: number | string }>(
    em,
    `select s.label, sum(s.count) as n
       from challenge_stats s join sites on sites.sitekey = s.sitekey
      where sites.owner_id = ? and s.bucket >= ? ${site} and s.metric = 'network'
      group by 1 order by 2 desc, 1 limit 10`,
    params(),
  );
  return shape(opts, start, end, stepMs, rows, networks);
}

function shape(
  opts: { range: AnalyticsRange; sitekey?: string },
  start: number,
  end: number,
  stepMs: number,
  rows: Row[],
  networks: Array<{ label: string; n: number | string }>,
): AnalyticsView {
  const zeroKinds = (): PerKind => ({ v1: 0, v2: 0, v3: 0 });
  const view: AnalyticsView = {
    range: opts.range,
    sitekey: opts.sitekey ?? null,
    from: new Date(start).toISOString(),
    to: new Date(end).toISOString(),
    step_seconds: stepMs / 1000,
    timeline: [],
    issued: zeroKinds(),
    solved: zeroKinds(),
    verified: zeroKinds(),
    refused: Object.fromEntries(REASONS.map((r) => [r, 0])) as Record<RefusalReason, number>,
    work: [],
    scores: Array.from({ length: 10 }, (_, i) => ({ score: `0.${i}`, count: 0 })),
    networks: networks.map((r) => ({ network: r.label, count: Number(r.n) })),
  };
  const points = new Map<number, AnalyticsView['timeline'][number]>();
  for (let t = start; t < end; t += stepMs) {
    const point = { t: new Date(t).toISOString(), issued: 0, solved: 0, verified: 0, refused: 0 };
    points.set(t, point);
    view.timeline.push(point);
  }
  const work = new Map<number, number>();
  for (const row of rows) {
    const n = Number(row.n);
    const metric = row.metric;
    if ((TIMELINE as readonly string[]).includes(metric)) {
      const point = points.get(new Date(row.t).getTime());
      if (point) point[metric as (typeof TIMELINE)[number]] += n;
    }
    if (metric === 'issued' || metric === 'solved' || metric === 'verified') {
      if ((KINDS as readonly string[]).includes(row.label)) view[metric][row.label as keyof PerKind] += n;
    } else if (metric === 'refused') {
      if (row.label in view.refused) view.refused[row.label as RefusalReason] += n;
    } else if (metric === 'work') {
      const bits = Number(row.label);
      work.set(bits, (work.get(bits) ?? 0) + n);
    } else if (metric === 'score') {
      const bucket = view.scores.find((s) => s.score === row.label);
      if (bucket) bucket.count += n;
    }
  }
  view.work = [...work].sort((a, b) => a[0] - b[0]).map(([bits, count]) => ({ bits, count }));
  return view;
}
