/**
 * The audit use cases: create (and schedule), list, read, runs, cancel or delete. Routers map
 * their input here and the rows to their public shapes.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { projectOf } from '../analyzer/project.ts';
import type { Config } from '../config.ts';
import { AuditPageSchema, AuditRunSchema, AuditSchema, type Audit, type AuditRun } from '../entities/audit.entity.ts';
import { AppError, notFound, validationError } from '../errors.ts';
import type { JobQueue } from '../queue/queue.ts';
import { parseReportUrl } from '../reports/urls.ts';
import { pagesLeftNow, secondsToNextDay } from './page-budget.ts';
import { startRun } from './runs.ts';
import { storeBudget } from './budgets.ts';
import type { StoredBudgetGroup } from '../budgets/budget.ts';

export const SCHEDULE_QUEUE = 'audit-schedule';

export interface CreateAuditRequest {
  url: string;
  maxPages?: number;
  render?: boolean;
  include: string[];
  exclude: string[];
  schedule?: string;
  timezone?: string;
  /** Times each page is measured per run (1 when absent). */
  runs?: number;
  /** The budget's groups (src/budgets/budget.ts); none when absent. */
  budget?: StoredBudgetGroup[];
}

/** `runs` within ANALYZER_MAX_RUNS, else a 422 on `runs`. */
export function checkRuns(config: Config, runs: number | undefined): number {
  if (runs !== undefined && runs > config.ANALYZER_MAX_RUNS) {
    throw validationError('runs', `At most ${config.ANALYZER_MAX_RUNS} runs (ANALYZER_MAX_RUNS).`);
  }
  return runs ?? 1;
}

function checkTimezone(tz: string): void {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
  } catch {
    throw validationError('timezone', 'The timezone must be an IANA time zone name, such as Europe/Paris.');
  }
}

/** Stores the audit and queues its first run; registers its schedule when it has one. */
export async function createAudit(
  em: EntityManager,
  deps: { config: Config; queue: JobQueue },
  userId: number,
  input: CreateAuditRequest,
): Promise<Audit> {
  const url = parseReportUrl(input.url);
  const runs = checkRuns(deps.config, input.runs);
  const cap = deps.config.AUDIT_MAX_PAGES;
  if (input.maxPages !== undefined && input.maxPages > cap) {
    throw validationError('max_pages', `The max_pages may be at most ${cap}.`);
  }
  const timezone = input.schedule ? (input.timezone ?? 'UTC') : undefined;
  if (input.timezone && !input.schedule) {
    throw validationError('timezone', 'The timezone applies only with a schedule.');
  }
  if (input.schedule) {
    checkTimezone(timezone!);
    checkInterval(deps, input.schedule, timezone!);
  }
  if ((await pagesLeftNow(em, userId, deps.config.AUDIT_DAILY_PAGES)) === 0) {
    throw new AppError(
      'ERR_AUDIT_PAGE_BUDGET',
      `The account's daily page budget (${deps.config.AUDIT_DAILY_PAGES} audit pages) is spent; it renews at 00:00 UTC.`,
      { retryAfter: secondsToNextDay() },
    );
  }
  const audit = await em.transactional(async (tx) => {
    // The account's row locked: two creates at once cannot both pass the cap.
    await tx.execute('select id from users where id = ? for update', [userId]);
    const [{ audits }] = await tx.execute<Array<{ audits: number }>>(
      'select count(*)::int as audits from audits where user_id = ?',
      [userId],
    );
    const most = deps.config.AUDIT_MAX_PER_ACCOUNT;
    if (audits >= most) {
      throw validationError(
        'url',
        `An account may have at most ${most} audits (AUDIT_MAX_PER_ACCOUNT); delete one first.`,
        {
          code: 'ERR_AUDIT_LIMIT',
        },
      );
    }
    const row = tx.create(AuditSchema, {
      user: userId,
      url: url.href,
      project: projectOf(url),
      maxPages: input.maxPages ?? Math.min(100, cap),
      render: input.render ?? null,
      include: input.include,
      exclude: input.exclude,
      schedule: input.schedule ?? null,
      timezone: timezone ?? null,
      runs,
      status: 'queued',
    });
    await tx.flush();
    if (input.budget?.length) await storeBudget(tx, row.id, input.budget);
    await startRun(tx, deps.queue, { id: row.id, userId });
    return row;
  });
  if (audit.schedule) {
    await deps.queue.schedule(SCHEDULE_QUEUE, String(audit.id), audit.schedule, audit.timezone!, { auditId: audit.id });
  }
  return audit;
}

/** Runs of a schedule looked at for its shortest interval, and how many are read at a time. */
const INTERVAL_SAMPLE = 100;
const INTERVAL_PAGE = 20;

/**
 * A schedule must be a cron expression whose runs are at least AUDIT_MIN_INTERVAL seconds
 * apart, judged on its next {@link INTERVAL_SAMPLE} runs. They are read a page at a time:
 * pg-boss gives a preview one second of wall clock, and a busy machine must not turn a valid
 * schedule into an invalid one (a page that runs out of time ends the check).
 */
function checkInterval(deps: { config: Config; queue: JobQueue }, schedule: string, tz: string): void {
  const least = deps.config.AUDIT_MIN_INTERVAL;
  let previous: Date | undefined;
  for (let checked = 0; checked < INTERVAL_SAMPLE; checked += INTERVAL_PAGE) {
    let runs: Date[];
    try {
      // Cron's granularity is a second: a millisecond after the last run excludes it alone.
      const from = previous && new Date(previous.getTime() + 1);
      runs = deps.queue.boss.previewSchedule(schedule, { tz, count: INTERVAL_PAGE, ...(from ? { from } : {}) });
    } catch {
      if (checked === 0) {
        throw validationError('schedule', 'The schedule must be a cron expression (five or six fields).');
      }
      return;
    }
    for (const run of runs) {
      if (previous && (run.getTime() - previous.getTime()) / 1000 < least) {
        throw validationError(
          'schedule',
          `A schedule may run at most once every ${least} seconds (AUDIT_MIN_INTERVAL); this one runs more often.`,
          { code: 'ERR_SCHEDULE_TOO_FREQUENT' },
        );
      }
      previous = run;
    }
    if (runs.length < INTERVAL_PAGE) return;
  }
}

/** The scheduled job: a new run, unless the audit's latest run is still under way. */
export async function runScheduled(
  em: EntityManager,
  queue: JobQueue,
  auditId: number,
  minIntervalSeconds: number,
): Promise<void> {
  await em.fork().transactional(async (tx) => {
    const locked = await tx.execute<Array<{ id: number; user_id: number }>>(
      'select id, user_id from audits where id = ? for update',
      [auditId],
    );
    if (locked.length === 0) return;
    const latest = await tx.findOne(AuditRunSchema, { audit: auditId }, { orderBy: { id: 'desc' } });
    if (latest && (latest.status === 'queued' || latest.status === 'running')) return;
    // A schedule saved before AUDIT_MIN_INTERVAL was raised still runs no more often than it
    // allows (less a minute, the cron's own granularity).
    const least = minIntervalSeconds * 1000 - Math.min(60_000, minIntervalSeconds * 500);
    if (latest && Date.now() - latest.createdAt.getTime() < least) return;
    await startRun(tx, queue, { id: auditId, userId: locked[0].user_id });
  });
}

export async function getAudit(em: EntityManager, userId: number, id: number): Promise<Audit> {
  const audit = await em.findOne(AuditSchema, { id, user: userId });
  if (!audit) throw notFound('Audit');
  return audit;
}

export async function latestRun(em: EntityManager, auditId: number): Promise<AuditRun | null> {
  return em.findOne(AuditRunSchema, { audit: auditId }, { orderBy: { id: 'desc' } });
}

/** The latest run of each audit, by audit id: two statements, whatever the number of audits. */
export async function latestRuns(em: EntityManager, auditIds: number[]): Promise<Map<number, AuditRun>> {
  if (auditIds.length === 0) return new Map();
  const latest = await em.execute<Array<{ id: number }>>(
    'select max(id) as id from audit_runs where audit_id in (?) group by audit_id',
    [auditIds],
  );
  const runs = await em.find(AuditRunSchema, { id: { $in: latest.map((r) => Number(r.id)) } });
  return new Map(runs.map((run) => [run.audit.id, run]));
}

export async function listAudits(em: EntityManager, userId: number, perPage: number, offset: number) {
  const [rows, total] = await em.findAndCount(
    AuditSchema,
    { user: userId },
    { orderBy: { id: 'desc' }, limit: perPage, offset },
  );
  return { rows, total };
}

export async function listRuns(em: EntityManager, auditId: number, perPage: number, offset: number) {
  const [rows, total] = await em.findAndCount(
    AuditRunSchema,
    { audit: auditId },
    { orderBy: { id: 'desc' }, limit: perPage, offset },
  );
  return { rows, total };
}

/** A run's pages with their reports (ids), in the order they were found. */
export async function runPages(em: EntityManager, runId: number) {
  return em.find(AuditPageSchema, { run: runId }, { orderBy: { id: 'asc' } });
}

/**
 * Cancels the audit's run under way (its queued pages are then skipped) and stops its
 * schedule; an audit with nothing under way is deleted (its reports stay). Returns what it did.
 */
export async function cancelOrDelete(
  em: EntityManager,
  queue: JobQueue,
  userId: number,
  id: number,
): Promise<'cancelled' | 'deleted'> {
  const audit = await getAudit(em, userId, id);
  if (audit.schedule) await queue.unschedule(SCHEDULE_QUEUE, String(audit.id));
  return em.transactional(async (tx) => {
    const runs = await tx.execute<Array<{ id: number }>>(
      `select id from audit_runs where audit_id = ? and status in ('queued', 'running') for update`,
      [id],
    );
    if (runs.length) {
      await tx.execute(`update audit_runs set status = 'cancelled', finished_at = now() where id in (?)`, [
        runs.map((r) => r.id),
      ]);
      await tx.nativeUpdate(AuditSchema, { id }, { status: 'cancelled', schedule: null, timezone: null });
      return 'cancelled' as const;
    }
    await tx.nativeDelete(AuditSchema, { id });
    return 'deleted' as const;
  });
}

export function describeRun(run: AuditRun) {
  return {
    id: run.id,
    status: run.status,
    progress: { done: run.done, failed: run.failed, total: run.total },
    summary: run.summary ?? null,
    changes: run.changes ?? null,
    error: run.error ?? null,
    started_at: run.startedAt?.toISOString() ?? null,
    finished_at: run.finishedAt?.toISOString() ?? null,
    created_at: run.createdAt.toISOString(),
  };
}

/**
 * Changes an audit's budget (null removes it), the runs per page, or its baseline run (null:
 * the previous completed run); the next run uses them. The baseline must be a completed run
 * of this audit.
 */
export async function configureAudit(
  em: EntityManager,
  config: Config,
  userId: number,
  id: number,
  change: { budget?: StoredBudgetGroup[] | null; runs?: number; baselineRun?: number | null },
): Promise<Audit> {
  const audit = await getAudit(em, userId, id);
  if (change.baselineRun) {
    const run = await em.findOne(AuditRunSchema, { id: change.baselineRun, audit: audit.id });
    if (run?.status !== 'completed') {
      throw validationError('baseline_run', 'The baseline must be a completed run of this audit.');
    }
  }
  const runs = change.runs === undefined ? undefined : checkRuns(config, change.runs);
  await em.transactional(async (tx) => {
    if (change.budget !== undefined) await storeBudget(tx, audit.id, change.budget ?? []);
    const set: Partial<Pick<Audit, 'runs' | 'baselineRunId'>> = {};
    if (runs !== undefined) set.runs = runs;
    if (change.baselineRun !== undefined) set.baselineRunId = change.baselineRun;
    if (Object.keys(set).length)
      await tx.nativeUpdate(AuditSchema, { id: audit.id }, { ...set, updatedAt: new Date() });
  });
  return getAudit(em.fork(), userId, id);
}

export function describeAudit(audit: Audit, run: AuditRun | null, budget: StoredBudgetGroup[] = []) {
  return {
    id: audit.id,
    url: audit.url,
    project: audit.project,
    status: audit.status,
    max_pages: audit.maxPages,
    render: audit.render ?? null,
    include: audit.include,
    exclude: audit.exclude,
    schedule: audit.schedule ?? null,
    timezone: audit.timezone ?? null,
    runs: audit.runs,
    baseline_run_id: audit.baselineRunId ?? null,
    budget,
    progress: run ? { done: run.done, failed: run.failed, total: run.total } : { done: 0, failed: 0, total: 0 },
    summary: run?.summary ?? null,
    run_id: run?.id ?? null,
    created_at: audit.createdAt.toISOString(),
    updated_at: audit.updatedAt.toISOString(),
  };
}
