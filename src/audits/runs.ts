/**
 * A run of a site audit, as queue jobs every instance shares:
 *
 * - `audit-run` reads robots.txt and the sitemap and stores the first pages (the start URL,
 *   then the sitemap's), each with its `audit-page` job, in one transaction.
 * - `audit-page` fetches one page for its links and analyses it into a report; in one
 *   transaction it stores the report, marks the page done, adds the new in-scope links (up to
 *   the run's page cap) with their jobs, and, for the run's last page, finishes the run.
 *
 * A page row is unique per run and is marked done in the transaction that stores its report,
 * under a lock on the page, so a job run twice (an instance stopped mid-page, its job retried
 * elsewhere) stores one report. Page jobs of one host take one of AUDIT_HOST_CONCURRENCY
 * singleton slots, held until AUDIT_HOST_DELAY_MS after the page, across all instances.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { AnalyzeError } from '../analyzer/errors.ts';
import type { Config } from '../config.ts';
import { AuditPageSchema, AuditRunSchema, AuditSchema, type AuditStatus } from '../entities/audit.entity.ts';
import { AppError } from '../errors.ts';
import type { DeadLetterFailure, JobQueue } from '../queue/queue.ts';
import { analyzerOptionsFrom, type ReportAnalyzer } from '../reports/analysis.ts';
import { createReport } from '../reports/reports.ts';
import { emitEvent } from '../webhooks/events.ts';
import { diffRuns, summarize, type RunPage } from './changes.ts';
import type { CrawlScope } from './crawl.ts';

export const RUN_QUEUE = 'audit-run';
export const PAGE_QUEUE = 'audit-page';
/** Where pg-boss moves a page job that failed its last attempt: {@link runDeadPageJob}. */
export const DEAD_PAGE_QUEUE = 'audit-page-dead';

/** What the run and page jobs need. */
export interface AuditDeps {
  em: EntityManager;
  config: Config;
  analyzer: ReportAnalyzer;
  queue: JobQueue;
  log: Logger;
}

/** robots.txt per run, read once per run by each instance rather than once per page. */
const robotsOfRun = new LRUCache<number, string>({ max: 256, ttl: 10 * 60_000 });

interface PageJob {
  runId: number;
  pageId: number;
}

/** Starts a new run of `auditId` (in `em`'s transaction): the run row and its `audit-run` job. */
export async function startRun(tx: EntityManager, queue: JobQueue, auditId: number): Promise<number> {
  const run = tx.create(AuditRunSchema, { audit: auditId, status: 'queued', total: 0, done: 0, failed: 0 });
  await tx.flush();
  await tx.nativeUpdate(AuditSchema, { id: auditId }, { status: 'queued', updatedAt: new Date() });
  await queue.send(RUN_QUEUE, { runId: run.id }, {}, tx);
  return run.id;
}

/**
 * The crawler's module, loaded by the first job that crawls: it brings cheerio and robots-parser,
 * which an instance that never runs an audit need not hold (test/build.test.ts, "lean" start).
 */
const crawling = () => import('./crawl.ts');

function scopeOf(audit: { url: string; include: string[]; exclude: string[] }, robots: string, ua: string): CrawlScope {
  return { origin: new URL(audit.url).origin, include: audit.include, exclude: audit.exclude, robots, userAgent: ua };
}

/** The `audit-run` job: discovers the first pages and queues them. */
export async function runStartJob(deps: AuditDeps, runId: number): Promise<void> {
  const run = await deps.em.fork().findOne(AuditRunSchema, { id: runId }, { populate: ['audit'] });
  if (!run || run.status !== 'queued') return;
  const audit = run.audit;
  const options = analyzerOptionsFrom(deps.config);
  const { Crawler, inScope } = await crawling();
  const crawler = new Crawler(options);
  let seeds: string[];
  let robots: string;
  try {
    robots = await crawler.robots(new URL(audit.url).origin);
    const scope = scopeOf(audit, robots, options.userAgent);
    const start = inScope(audit.url, { ...scope, include: [] });
    seeds = [...new Set([...(start ? [start] : []), ...(await crawler.sitemapPages(scope, audit.maxPages))])];
  } finally {
    await crawler.close();
  }
  await deps.em.fork().transactional(async (tx) => {
    const locked = await tx.execute<Array<{ status: AuditStatus }>>(
      'select status from audit_runs where id = ? for update',
      [runId],
    );
    if (locked[0]?.status !== 'queued') return;
    const added = await addPages(tx, deps, runId, seeds.slice(0, audit.maxPages), audit.maxPages);
    await tx.execute(`update audit_runs set status = 'running', started_at = now(), total = ? where id = ?`, [
      added,
      runId,
    ]);
    await tx.nativeUpdate(AuditSchema, { id: audit.id }, { status: 'running', updatedAt: new Date() });
    if (added === 0) await finishRun(tx, deps, runId, 'No page of the site could be audited (robots.txt or filters).');
  });
}

/**
 * Inserts the pages not yet in the run (at most `cap` in the run) and queues their jobs, in
 * `tx`. Returns how many were added.
 */
async function addPages(tx: EntityManager, deps: AuditDeps, runId: number, urls: string[], cap: number) {
  if (urls.length === 0) return 0;
  const [{ total }] = await tx.execute<Array<{ total: number }>>(
    'select count(*)::int as total from audit_pages where run_id = ?',
    [runId],
  );
  const room = Math.max(0, cap - total);
  if (room === 0) return 0;
  const rows = await tx.execute<Array<{ id: number; url: string }>>(
    `insert into audit_pages (run_id, url, status, attempts, updated_at)
     select ?, u, 'queued', 0, now() from json_array_elements_text(?::json) with ordinality as t(u, n) order by n
     on conflict (run_id, url) do nothing returning id, url`,
    [runId, JSON.stringify(urls)],
  );
  // More rows than room can come back only when urls held more new pages than the cap allows.
  const kept = rows.slice(0, room);
  if (rows.length > kept.length) {
    await tx.execute('delete from audit_pages where id in (?)', [rows.slice(room).map((r) => r.id)]);
  }
  const slots = deps.config.AUDIT_HOST_CONCURRENCY;
  await deps.queue.insert(
    PAGE_QUEUE,
    kept.map((row) => ({
      data: { runId, pageId: row.id } satisfies PageJob,
      singletonKey: `${new URL(row.url).host}#${row.id % slots}`,
    })),
    tx,
  );
  return kept.length;
}

/** Analyses with the audit owner's share of the analyzer, waiting while that share is taken. */
async function analyzeWhenFree(deps: AuditDeps, url: string, userId: number, render: boolean | null) {
  for (;;) {
    try {
      return await deps.analyzer.analyze(url, { tenant: String(userId), render: render ?? undefined });
    } catch (err) {
      if (!(err instanceof AppError) || err.kind !== 'UNAVAILABLE') throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.min(5, err.retryAfter ?? 1) * 1000));
    }
  }
}

function failureOf(err: unknown): string {
  if (err instanceof AnalyzeError) return `${err.reason}: ${err.message}`.slice(0, 512);
  if (err instanceof AppError) return `${err.reason ?? err.code}: ${err.message}`.slice(0, 512);
  throw err;
}

type PageOutcome =
  { ok: true; analysis: Awaited<ReturnType<ReportAnalyzer['analyze']>> } | { ok: false; error: string };

/**
 * Stores a page's outcome once (the run and the page locked; nothing happens when the page is
 * no longer queued): its report, or its failure; the run's counters; the new links' pages; and
 * the run's end when this was its last page.
 */
async function settlePage(
  deps: AuditDeps,
  job: PageJob,
  audit: { userId: number; maxPages: number },
  outcome: PageOutcome,
  links: string[] = [],
): Promise<void> {
  await deps.em.fork().transactional(async (tx) => {
    await tx.execute('select id from audit_runs where id = ? for update', [job.runId]);
    const [current] = await tx.execute<Array<{ status: string }>>(
      'select status from audit_pages where id = ? for update',
      [job.pageId],
    );
    if (current?.status !== 'queued') return;
    if (outcome.ok) {
      const a = outcome.analysis;
      const report = await createReport(tx, audit.userId, { privacy: 1 }, a);
      const failing = Object.entries(a.results)
        .filter(([, r]) => !r.passed)
        .map(([id]) => id);
      await tx.nativeUpdate(
        AuditPageSchema,
        { id: job.pageId },
        { status: 'done', report: report.id, score: a.score, result: a.result, failing, updatedAt: new Date() },
      );
      await tx.execute('update audit_runs set done = done + 1 where id = ?', [job.runId]);
      const added = await addPages(tx, deps, job.runId, links, audit.maxPages);
      if (added) await tx.execute('update audit_runs set total = total + ? where id = ?', [added, job.runId]);
    } else {
      await tx.nativeUpdate(
        AuditPageSchema,
        { id: job.pageId },
        { status: 'failed', error: outcome.error.slice(0, 512), updatedAt: new Date() },
      );
      await tx.execute('update audit_runs set failed = failed + 1 where id = ?', [job.runId]);
    }
    const [run] = await tx.execute<Array<{ total: number; done: number; failed: number; status: string }>>(
      'select total, done, failed, status from audit_runs where id = ?',
      [job.runId],
    );
    if (run.status === 'running' && run.done + run.failed >= run.total) await finishRun(tx, deps, job.runId);
  });
}

/**
 * The `audit-page-dead` job: the page whose `audit-page` job failed every attempt (an instance
 * stopped on it each time, or the job itself threw) is failed with why, counted in its run's
 * progress, and ends its run when it was the last page; a page already settled is left alone.
 */
export async function runDeadPageJob(deps: AuditDeps, job: PageJob, failure: DeadLetterFailure): Promise<void> {
  const page = await deps.em.fork().findOne(AuditPageSchema, { id: job.pageId }, { populate: ['run', 'run.audit'] });
  if (!page || page.status !== 'queued' || page.run.status !== 'running') return;
  const audit = page.run.audit;
  const error = `job_failed: The page's job failed all ${failure.attempts} attempts; the last: ${failure.reason}`;
  deps.log.warn({ runId: job.runId, pageId: job.pageId, failure }, 'audit page given up after every attempt failed');
  await settlePage(deps, job, { userId: audit.user.id, maxPages: audit.maxPages }, { ok: false, error });
}

/** The `audit-page` job: one page, once. */
export async function runPageJob(deps: AuditDeps, job: PageJob): Promise<void> {
  const em = deps.em.fork();
  const page = await em.findOne(AuditPageSchema, { id: job.pageId }, { populate: ['run', 'run.audit'] });
  if (!page || page.status !== 'queued' || page.run.status !== 'running') return;
  const audit = page.run.audit;
  await em.nativeUpdate(AuditPageSchema, { id: page.id }, { attempts: page.attempts + 1 });
  const options = analyzerOptionsFrom(deps.config);
  const { Crawler } = await crawling();
  const crawler = new Crawler(options);
  let links: string[] = [];
  let outcome: PageOutcome;
  try {
    let robots = robotsOfRun.get(job.runId);
    if (robots === undefined) {
      robots = await crawler.robots(new URL(audit.url).origin);
      robotsOfRun.set(job.runId, robots);
    }
    links = await crawler.links(page.url, scopeOf(audit, robots, options.userAgent));
    outcome = { ok: true, analysis: await analyzeWhenFree(deps, page.url, audit.user.id, audit.render ?? null) };
  } catch (err) {
    outcome = { ok: false, error: failureOf(err) };
  } finally {
    await crawler.close();
  }
  await settlePage(deps, job, { userId: audit.user.id, maxPages: audit.maxPages }, outcome, links);
  // The host's slot stays taken a moment after its page: politeness across every instance.
  if (deps.config.AUDIT_HOST_DELAY_MS > 0) {
    await new Promise((resolve) => setTimeout(resolve, deps.config.AUDIT_HOST_DELAY_MS));
  }
}

async function pagesOf(tx: EntityManager, runId: number): Promise<RunPage[]> {
  return tx.execute<RunPage[]>('select url, status, result, score, failing from audit_pages where run_id = ?', [runId]);
}

/**
 * Ends a run (in `tx`, the run locked): its summary, its changes since the audit's previous
 * completed run, the audit's status, the events for webhooks, and the retention of old runs.
 */
async function finishRun(tx: EntityManager, deps: AuditDeps, runId: number, error?: string): Promise<void> {
  const run = await tx.findOneOrFail(AuditRunSchema, { id: runId }, { populate: ['audit'] });
  const audit = run.audit;
  const pages = await pagesOf(tx, runId);
  const summary = summarize(pages);
  const previous = await tx.findOne(
    AuditRunSchema,
    { audit: audit.id, id: { $lt: runId }, status: 'completed' },
    { orderBy: { id: 'desc' } },
  );
  const changes = diffRuns(previous?.id ?? null, previous ? await pagesOf(tx, previous.id) : [], pages);
  const status: AuditStatus = summary.pages > summary.failed_pages ? 'completed' : 'failed';
  run.status = status;
  run.summary = summary;
  run.changes = changes;
  run.error = error ?? (status === 'failed' ? 'Every page of the run failed.' : null);
  run.finishedAt = new Date();
  audit.status = status;
  await tx.flush();
  const userId = audit.user.id;
  const body = {
    audit_id: audit.id,
    run_id: runId,
    url: audit.url,
    status,
    progress: { done: run.done, failed: run.failed, total: run.total },
    summary,
  };
  await emitEvent(tx, deps.queue, userId, status === 'completed' ? 'audit.completed' : 'audit.failed', body);
  for (const moved of changes.grades_moved) {
    await emitEvent(tx, deps.queue, userId, 'report.grade_changed', {
      audit_id: audit.id,
      run_id: runId,
      ...moved,
    });
  }
  await tx.execute(
    `delete from audit_runs where audit_id = ? and id not in
       (select id from audit_runs where audit_id = ? order by id desc limit ?)`,
    [audit.id, audit.id, deps.config.AUDIT_RUN_RETENTION],
  );
}
