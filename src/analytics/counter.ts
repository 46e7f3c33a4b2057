import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';

/**
 * What the console's challenge analytics count (docs/console.md), each with its label:
 * - `issued`: a challenge handed out, by kind (`v1`, `v2`, `v3`);
 * - `solved`: a token earned, by kind;
 * - `verified`: a token redeemed at siteverify, by kind;
 * - `refused`: a failure, by reason ({@link RefusalReason});
 * - `work`: the work asked with a challenge, by its bits (2^bits expected hashes);
 * - `score`: the score of a verified token, by tenth (`0.0` .. `0.9`, 1.0 counted as `0.9`);
 * - `network`: the requester's network (IPv4 /24, IPv6 /64) of each issued challenge.
 */
export type AnalyticsMetric = 'issued' | 'solved' | 'verified' | 'refused' | 'work' | 'score' | 'network';

/** Why a challenge or a token was refused, as the console groups them. */
export type RefusalReason =
  'wrong_answer' | 'invalid_proof' | 'duplicate' | 'expired' | 'rate_limited' | 'remoteip_mismatch' | 'below_minimum';

/** Where the challenge flows report what happened; never waits, never fails the request. */
export interface ChallengeEvents {
  record(sitekey: string, metric: AnalyticsMetric, label: string): void;
}

/** The minute bucket a time falls in. */
const minuteOf = (ms: number) => ms - (ms % 60_000);

/** Prometheus carries every metric except the unbounded `network` label (per-site counts stay in the database). */
const promLabelled = new Set<AnalyticsMetric>(['issued', 'solved', 'verified', 'refused']);

/** Most distinct (minute, sitekey, metric, label) rows held between flushes; beyond it new rows are dropped and logged. */
const MAX_PENDING_ROWS = 100_000;

export interface AnalyticsOptions {
  orm: MikroORM;
  log: Logger;
  registry?: Registry;
  flushMs: number;
  retentionDays: number;
  now?: () => number;
}

/**
 * Challenge analytics counted off the request path: {@link ChallengeEvents.record} adds one
 * to an in-memory map (no I/O, no promise) and, for the bounded metrics, to the Prometheus
 * counter `challenge_events_total{metric,label}`. Every `flushMs` the map is written to
 * `challenge_stats` in ONE statement that adds to the minute buckets already there, so
 * several instances sharing a database add up. A failed write keeps its counts for the next
 * flush. Buckets older than `retentionDays` are deleted at most once an hour.
 */
export class ChallengeAnalytics implements ChallengeEvents {
  private pending = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private lastPrune = 0;
  private flushing?: Promise<void>;
  private readonly now: () => number;
  private readonly prom?: Counter<'metric' | 'label'>;
  private readonly promSeries = new Map<string, { inc(): void }>();
  private dropped = 0;

  constructor(private readonly opts: AnalyticsOptions) {
    this.now = opts.now ?? Date.now;
    if (opts.registry) {
      this.prom = new Counter({
        name: 'challenge_events_total',
        help: 'Challenge events, as the console counts them: metric (issued, solved, verified, refused) and label (kind or reason).',
        labelNames: ['metric', 'label'] as const,
        registers: [opts.registry],
      });
    }
  }

  record(sitekey: string, metric: AnalyticsMetric, label: string): void {
    const key = `${minuteOf(this.now())}\t${sitekey}\t${metric}\t${label}`;
    const had = this.pending.get(key);
    if (had !== undefined) this.pending.set(key, had + 1);
    else if (this.pending.size < MAX_PENDING_ROWS) this.pending.set(key, 1);
    else this.dropped++;
    if (this.prom && promLabelled.has(metric)) {
      const series = `${metric}\t${label}`;
      let child = this.promSeries.get(series);
      if (!child) this.promSeries.set(series, (child = this.prom.labels({ metric, label })));
      child.inc();
    }
  }

  /** Starts the periodic flush (an unref'd timer: it never keeps the process alive). */
  start(): this {
    this.timer ??= setInterval(() => void this.flush(), this.opts.flushMs).unref();
    return this;
  }

  /** Writes what was counted since the last flush (one statement); resolves when written or kept for the next. */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private async write(): Promise<void> {
    const batch = this.pending;
    if (this.dropped) {
      this.opts.log.warn({ dropped: this.dropped }, 'challenge analytics: too many distinct rows between flushes');
      this.dropped = 0;
    }
    if (batch.size) {
      this.pending = new Map();
      const rows = [...batch].map(([key, count]) => {
        const [minute, sitekey, metric, label] = key.split('\t');
        return { bucket: new Date(Number(minute)).toISOString(), sitekey, metric, label, count };
      });
      try {
        await this.opts.orm.em.getConnection().execute(
          `insert into challenge_stats (bucket, sitekey, metric, label, count)
           select bucket, sitekey, metric, label, count
             from jsonb_to_recordset(?::jsonb) as r(bucket timestamptz, sitekey text, metric text, label text, count int)
           on conflict (bucket, sitekey, metric, label) do update set count = challenge_stats.count + excluded.count`,
          [JSON.stringify(rows)],
          'run',
        );
      } catch (err) {
        this.opts.log.warn(
          { err: (err as Error).message },
          'writing challenge analytics failed; kept for the next flush',
        );
        for (const [key, count] of batch) this.pending.set(key, (this.pending.get(key) ?? 0) + count);
      }
    }
    await this.prune();
  }

  private async prune(): Promise<void> {
    const now = this.now();
    if (now - this.lastPrune < 3_600_000) return;
    this.lastPrune = now;
    const before = new Date(now - this.opts.retentionDays * 86_400_000).toISOString();
    try {
      await this.opts.orm.em.getConnection().execute('delete from challenge_stats where bucket < ?', [before], 'run');
    } catch (err) {
      this.opts.log.warn({ err: (err as Error).message }, 'pruning challenge analytics failed');
    }
  }
}

/** The score's tenth as a label: `0.0` .. `0.9` (1.0 counts as `0.9`). */
export function scoreLabel(score: number): string {
  const tenth = Math.min(9, Math.max(0, Math.floor(score * 10)));
  return `0.${tenth}`;
}
