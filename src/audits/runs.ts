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
 * elsewhere) stores one report.
 *
 * Fair shares, every instance together (docs/isolation.md): a page job takes one of its
 * account's AUDIT_KEY_WORKERS singleton slots (pg-boss enforces one active job per singleton
 * key), held until AUDIT_HOST_DELAY_MS after the page; its priority is minus the number of the
 * account's pages queued before it, so the k-th waiting page of every account is served before
 * any account's (k+1)-th: an account with few pages never waits behind one with many. A run
 * start takes its account's one slot of `audit-start`. Pages of one host are also grouped
 * (AUDIT_HOST_CONCURRENCY at once, pg-boss's group concurrency) out of politeness to the site.
 */
import { gatewayFindings } from '../gateway/sites.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { accessibilityScore } from '../analyzer/checks/accessibility-rules.ts';
import { parseTargetUrl } from '../analyzer/address-guard.ts';
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
import { pagesLeftToday, spendPages } from './page-budget.ts';
import { analyzeRuns } from '../reports/repeated-runs.ts';
import { assertPage, budgetOf, summarizeBudget } from './budgets.ts';
import { regressionsOf } from './regressions.ts';

export const RUN_QUEUE = 'audit-start';
/**
 * The run-start queue before it took one slot per account (a standard queue cannot become a
 * singleton one): its queued runs are sent again to {@link RUN_QUEUE} at start, then it is dropped.
 */
export const LEGACY_RUN_QUEUE = 'audit-run';
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

/**
 * robots.txt per run, read once per run by each instance rather than once per page; at most
 * 8 MB of them (a robots.txt is read up to 500 KiB).
 */
const robotsOfRun = new LRUCache<number, string>({
  maxSize: 8 * 1024 * 1024,
  sizeCalculation: (text) => text.length + 1,
  ttl: 10 * 60_000,
});

interface PageJob {
  runId: number;
  pageId: number;
}

/** The options of a run-start job: one slot per account, every instance together. */
export function runJobOptions(userId: number) {
  return { singletonKey: `user-${userId}` };
}

/** Starts a new run of `audit` (in `tx`'s transaction): the run row and its `audit-start` job. */
export async function startRun(
  tx: EntityManager,
  queue: JobQueue,
  audit: { id: number; userId: number },
): Promise<number> {
  const run = tx.create(AuditRunSchema, { audit: audit.id, status: 'queued', total: 0, done: 0, failed: 0 });
  await tx.flush();
  await tx.nativeUpdate(AuditSchema, { id: audit.id }, { status: 'queued', updatedAt: new Date() });
  await queue.send(RUN_QUEUE, { runId: run.id }, runJobOptions(audit.userId), tx);
  return run.id;
}

/**
 * The crawler's module, loaded by the first job that crawls: it brings the analyzer's fetcher,
 * which an instance that never runs an audit need not hold (test/build.browser.test.ts, "lean" start).
 */
const crawling = () => import('./crawl.ts');

function scopeOf(audit: { url: string; include: string[]; exclude: string[] }, robots: string, ua: string): CrawlScope {
  return { origin: new URL(audit.url).origin, include: audit.include, exclude: audit.exclude, robots, userAgent: ua };
}

async function crawlerOf(deps: AuditDeps, options: ReturnType<typeof analyzerOptionsFrom>, signal?: AbortSignal) {
  const { Crawler } = await crawling();
  return new Crawler(options, deps.analyzer, { maxLinks: deps.config.AUDIT_MAX_LINKS }, signal);
}

/**
 * The `audit-start` job: discovers the first pages and queues them. Discovery (robots.txt and
 * every sitemap together) has AUDIT_DISCOVERY_TIMEOUT_MS; past it the run starts with what it
 * found (the start URL at least).
 */
export async function runStartJob(deps: AuditDeps, runId: number): Promise<void> {
  const run = await deps.em.fork().findOne(AuditRunSchema, { id: runId }, { populate: ['audit'] });
  if (!run || run.status !== 'queued') return;
  const audit = run.audit;
  const options = analyzerOptionsFrom(deps.config);
  const crawler = await crawlerOf(deps, options, AbortSignal.timeout(deps.config.AUDIT_DISCOVERY_TIMEOUT_MS));
  let seeds: string[];
  try {
    const robots = await crawler.robots(new URL(audit.url).origin);
    robotsOfRun.set(runId, robots);
    const scope = scopeOf(audit, robots, options.userAgent);
    const start = await deps.analyzer.links({
      kind: 'list',
      text: audit.url,
      url: audit.url,
      scope: { ...scope, include: [] },
      limit: 1,
      maxCandidates: 1,
    });
    seeds = [...new Set([...start.urls, ...(await crawler.sitemapPages(scope, audit.maxPages))])];
  } finally {
    await crawler.close();
  }
  await deps.em.fork().transactional(async (tx) => {
    const locked = await tx.execute<Array<{ status: AuditStatus }>>(
      'select status from audit_runs where id = ? for update',
      [runId],
    );
    if (locked[0]?.status !== 'queued') return;
    const { added, budgetLeft } = await addPages(
      tx,
      deps,
      runId,
      audit.user.id,
      seeds.slice(0, audit.maxPages),
      audit.maxPages,
      audit.runs,
    );
    await tx.execute(`update audit_runs set status = 'running', started_at = now(), total = ? where id = ?`, [
      added,
      runId,
    ]);
    await tx.nativeUpdate(AuditSchema, { id: audit.id }, { status: 'running', updatedAt: new Date() });
    if (added === 0) {
      const why =
        budgetLeft === 0 && seeds.length > 0
          ? `The account's daily page budget (AUDIT_DAILY_PAGES = ${deps.config.AUDIT_DAILY_PAGES}) is spent; it renews at 00:00 UTC.`
          : 'No page of the site could be audited (robots.txt or filters).';
      await finishRun(tx, deps, runId, why);
    }
  });
}

/**
 * The queue options of a page job: one of its account's AUDIT_KEY_WORKERS slots, its host's
 * group, and its place in its account's own line (see the module's doc).
 */
function pageJobOptions(deps: AuditDeps, userId: number, pageId: number, url: string, place: number) {
  return {
    singletonKey: `user-${userId}#${pageId % deps.config.AUDIT_KEY_WORKERS}`,
    group: { id: new URL(url).host },
    priority: -place,
  };
}

/** Pages of the account waiting in runs under way: where its next page stands in its own line. */
async function queuedPagesOf(tx: EntityManager, userId: number): Promise<number> {
  const [row] = await tx.execute<Array<{ queued: number }>>(
    `select coalesce(sum(greatest(r.total - r.done - r.failed, 0)), 0)::int as queued
       from audit_runs r join audits a on a.id = r.audit_id
      where a.user_id = ? and r.status in ('queued', 'running')`,
    [userId],
  );
  return row?.queued ?? 0;
}

/**
 * Inserts the pages not yet in the run (at most `cap` in the run, and no more than the
 * account's daily page budget allows) and queues their jobs, in `tx`. Returns how many were
 * added and how much of the budget is left.
 */
async function addPages(
  tx: EntityManager,
  deps: AuditDeps,
  runId: number,
  userId: number,
  urls: string[],
  cap: number,
  runs = 1,
): Promise<{ added: number; budgetLeft: number }> {
  if (urls.length === 0) return { added: 0, budgetLeft: -1 };
  const [{ total }] = await tx.execute<Array<{ total: number }>>(
    'select count(*)::int as total from audit_pages where run_id = ?',
    [runId],
  );
  const budgetLeft = await pagesLeftToday(tx, userId, deps.config.AUDIT_DAILY_PAGES);
  // Each run of a page is a page of the daily budget: N runs cost N pages of the renderer.
  const room = Math.min(Math.floor(budgetLeft / runs), Math.max(0, cap - total));
  if (room === 0) return { added: 0, budgetLeft };
  const ahead = await queuedPagesOf(tx, userId);
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
  await deps.queue.insert(
    PAGE_QUEUE,
    kept.map((row, i) => ({
      data: { runId, pageId: row.id } satisfies PageJob,
      ...pageJobOptions(deps, userId, row.id, row.url, ahead + i),
    })),
    tx,
  );
  await spendPages(tx, userId, kept.length * runs);
  return { added: kept.length, budgetLeft: budgetLeft - kept.length * runs };
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
  audit: { id: number; userId: number; maxPages: number; runs: number },
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
      const [page] = await tx.execute<Array<{ url: string }>>('select url from audit_pages where id = ?', [job.pageId]);
      const assertions = assertPage(await budgetOf(tx, audit.id), {
        url: page.url,
        results: a.results,
        runs: a.samples ?? [],
      });
      const failing = Object.entries(a.results)
        .filter(([, r]) => !r.passed)
        .map(([id]) => id);
      await tx.nativeUpdate(
        AuditPageSchema,
        { id: job.pageId },
        {
          status: 'done',
          report: report.id,
          score: a.score,
          result: a.result,
          failing,
          accessibilityScore: accessibilityScore(
            Object.entries(a.results).map(([id, r]) => ({ id, passed: r.passed, value: r.value })),
          ).score,
          assertions,
          updatedAt: new Date(),
        },
      );
      await tx.execute('update audit_runs set done = done + 1 where id = ?', [job.runId]);
      const { added } = await addPages(tx, deps, job.runId, audit.userId, links, audit.maxPages, audit.runs);
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
  await settlePage(
    deps,
    job,
    { id: audit.id, userId: audit.user.id, maxPages: audit.maxPages, runs: audit.runs },
    { ok: false, error },
  );
}

/** True when the error says the account's share of the analyzer is taken (or the analyzer is full). */
function analyzerBusy(err: unknown): err is AppError {
  return err instanceof AppError && err.status === 503;
}

/**
 * The `audit-page` job: one page, once. A page whose account's analyzer share stays taken (its
 * reports are running) past ANALYZER_KEY_WAIT_MS is queued again a few seconds later and its
 * worker is given back.
 */
export async function runPageJob(deps: AuditDeps, job: PageJob): Promise<void> {
  const em = deps.em.fork();
  const page = await em.findOne(AuditPageSchema, { id: job.pageId }, { populate: ['run', 'run.audit'] });
  if (!page || page.status !== 'queued' || page.run.status !== 'running') return;
  const audit = page.run.audit;
  const userId = audit.user.id;
  const options = analyzerOptionsFrom(deps.config);
  const crawler = await crawlerOf(deps, options);
  let links: string[] = [];
  let outcome: PageOutcome;
  await em.nativeUpdate(AuditPageSchema, { id: page.id }, { attempts: page.attempts + 1 });
  try {
    const origin = new URL(audit.url).origin;
    const analysis = await analyzeRuns(
      deps.analyzer,
      parseTargetUrl(page.url),
      { tenant: String(userId), render: audit.render ?? undefined },
      audit.runs,
    );
    outcome = { ok: true, analysis };
    let robots = robotsOfRun.get(job.runId);
    if (robots === undefined) {
      robots = await crawler.robots(origin);
      robotsOfRun.set(job.runId, robots);
    }
    const room = audit.maxPages - page.run.total;
    links = await crawler.links(page.url, scopeOf(audit, robots, options.userAgent), room).catch(() => []);
  } catch (err) {
    if (analyzerBusy(err)) {
      const delay = Math.min(5, Math.max(1, err.retryAfter ?? 1));
      await deps.queue.send(PAGE_QUEUE, job, {
        ...pageJobOptions(deps, userId, page.id, page.url, await queuedPagesOf(em, userId)),
        startAfter: delay,
      });
      return;
    }
    outcome = { ok: false, error: failureOf(err) };
  } finally {
    await crawler.close();
  }
  await settlePage(deps, job, { id: audit.id, userId, maxPages: audit.maxPages, runs: audit.runs }, outcome, links);
  // The account's slot stays taken a moment after its page: politeness to the site, across every instance.
  if (deps.config.AUDIT_HOST_DELAY_MS > 0) {
    await new Promise((resolve) => setTimeout(resolve, deps.config.AUDIT_HOST_DELAY_MS));
  }
}

async function pagesOf(tx: EntityManager, runId: number): Promise<RunPage[]> {
  return tx.execute<RunPage[]>(
    'select url, status, result, score, failing, accessibility_score, assertions from audit_pages where run_id = ?',
    [runId],
  );
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
  const gateway = await gatewayFindings(tx, audit.user.id, audit.url);
  if (gateway) summary.gateway = gateway;
  const previous = await tx.findOne(
    AuditRunSchema,
    { audit: audit.id, id: { $lt: runId }, status: 'completed' },
    { orderBy: { id: 'desc' } },
  );
  const changes = diffRuns(previous?.id ?? null, previous ? await pagesOf(tx, previous.id) : [], pages);
  const budget = summarizeBudget(pages);
  if (budget) summary.budget = budget;
  const baselineRun = audit.baselineRunId ?? previous?.id;
  const regressions = baselineRun ? await regressionsOf(tx, runId, baselineRun) : null;
  if (regressions) summary.regressions = regressions;
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
  await emitEvent(
    tx,
    deps.queue,
    deps.config.WEBHOOK_KEY_CONCURRENCY,
    userId,
    status === 'completed' ? 'audit.completed' : 'audit.failed',
    body,
  );
  // Only a significant regression, larger than its metric's minimum effect, is told (src/budgets/regression.ts).
  if (regressions && regressions.metrics.length > 0) {
    await emitEvent(tx, deps.queue, deps.config.WEBHOOK_KEY_CONCURRENCY, userId, 'audit.regressed', {
      audit_id: audit.id,
      run_id: runId,
      baseline_run_id: regressions.baseline_run,
      url: audit.url,
      regressions: regressions.metrics,
    });
  }
  for (const moved of changes.grades_moved) {
    await emitEvent(tx, deps.queue, deps.config.WEBHOOK_KEY_CONCURRENCY, userId, 'report.grade_changed', {
      audit_id: audit.id,
      run_id: runId,
      ...moved,
    });
  }
  await tx.execute(
    `delete from audit_runs where audit_id = ? and id <> ? and id not in
       (select id from audit_runs where audit_id = ? order by id desc limit ?)`,
    // The chosen baseline is kept whatever its age: it is what regressions are tested against.
    [audit.id, audit.baselineRunId ?? 0, audit.id, deps.config.AUDIT_RUN_RETENTION],
  );
}
