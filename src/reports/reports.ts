import { LockMode, raw } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AnalysisResult } from '../analyzer/index.ts';
import { ReportSchema, type Privacy, type Report, type ReportResult } from '../entities/report.entity.ts';
import { UserSchema } from '../entities/user.entity.ts';
import { notFound, validationError } from '../errors.ts';
import { hashPassword } from './passwords.ts';
import { addToProject, countReports, removeFromProject, type ReportContribution } from './projects.ts';
import { likeContains } from './pagination.ts';
import { shareUrl } from './share-page.ts';

/** The columns a list shows (not the per-check detail). */
const summaryFields = ['id', 'url', 'project', 'result', 'score', 'privacy', 'passwordHash', 'shareId', 'generatedAt', 'createdAt', 'updatedAt'] as const;

/** A report as lists load it: the listed columns, as plain data (lists load no entities). */
export type ReportSummary = Pick<Report, (typeof summaryFields)[number]>;

function contribution(r: ReportSummary, userId: number): ReportContribution {
  return { userId, project: r.project, score: r.score, result: r.result, createdAt: r.createdAt };
}

/**
 * The password rule: required for privacy 2 (unless one is kept), refused otherwise.
 * Checked before any analysis so bad input costs no network work.
 */
export function checkPasswordRule(privacy: Privacy, password: string | undefined, hasCurrent: boolean): void {
  if (privacy !== 2 && password) throw validationError('password', 'The password applies only when privacy is 2 (Password).');
  if (privacy === 2 && !password && !hasCurrent) {
    throw validationError('password', 'A password is required when privacy is 2 (Password).');
  }
}

/** The stored hash after a change: a new hash, the kept one, or none (privacy not 2). */
async function passwordFor(privacy: Privacy, password: string | undefined, current: string | null): Promise<string | null> {
  checkPasswordRule(privacy, password, current !== null);
  if (privacy !== 2) return null;
  return password ? hashPassword(password) : current;
}

/** Stores a new report for an analysis, and counts it in its project, in one transaction. */
export async function createReport(
  em: EntityManager,
  userId: number,
  input: { privacy: Privacy; password?: string },
  analysis: AnalysisResult,
): Promise<Report> {
  const passwordHash = await passwordFor(input.privacy, input.password, null);
  return em.transactional(async (tx) => {
    const now = new Date();
    const report = tx.create(ReportSchema, {
      user: tx.getReference(UserSchema, userId),
      url: analysis.finalUrl,
      project: analysis.project,
      result: analysis.result,
      score: analysis.score,
      results: analysis.results as unknown as Record<string, unknown[]>,
      privacy: input.privacy,
      passwordHash,
      generatedAt: now,
      createdAt: now,
      updatedAt: now,
    });
    await tx.flush();
    await addToProject(tx, contribution(report, userId));
    return report;
  });
}

/** The caller's report, or NOT_FOUND (another user's report is not found either). */
export async function getReport(em: EntityManager, userId: number, id: number): Promise<Report> {
  const report = await em.findOne(ReportSchema, { id, user: userId });
  if (!report) throw notFound('Report');
  return report;
}

export interface ReportUpdate {
  privacy?: Privacy;
  password?: string;
  /** A fresh analysis when `results=1` was asked for. */
  analysis?: AnalysisResult;
}

/**
 * Applies privacy, password and a re-analysis. The row is locked for the transaction so
 * concurrent updates cannot double-count project aggregates; a new final host moves the
 * report to another project.
 */
export async function updateReport(em: EntityManager, userId: number, id: number, change: ReportUpdate): Promise<Report> {
  return em.transactional(async (tx) => {
    const report = await tx.findOne(ReportSchema, { id, user: userId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!report) throw notFound('Report');
    const privacy = change.privacy ?? report.privacy;
    if (change.privacy !== undefined || change.password) {
      report.passwordHash = await passwordFor(privacy, change.password, privacy === report.privacy ? report.passwordHash ?? null : null);
      report.privacy = privacy;
    }
    if (change.analysis) {
      const before = contribution(report, userId);
      const a = change.analysis;
      report.url = a.finalUrl;
      report.project = a.project;
      report.score = a.score;
      report.result = a.result;
      report.results = a.results as unknown as Record<string, unknown[]>;
      report.generatedAt = new Date();
      await tx.flush();
      await removeFromProject(tx, before);
      await addToProject(tx, contribution(report, userId));
    }
    report.updatedAt = new Date();
    await tx.flush();
    return report;
  });
}

/** Deletes a report and takes it out of its project, in one transaction. */
export async function deleteReport(em: EntityManager, userId: number, id: number): Promise<void> {
  await em.transactional(async (tx) => {
    const report = await tx.findOne(ReportSchema, { id, user: userId }, { lockMode: LockMode.PESSIMISTIC_WRITE, exclude: ['results'] });
    if (!report) throw notFound('Report');
    const gone = contribution(report, userId);
    await tx.nativeDelete(ReportSchema, { id: report.id });
    await removeFromProject(tx, gone);
  });
}

export interface ReportListQuery {
  search?: string;
  project?: string;
  result?: ReportResult;
  sortBy: 'id' | 'generated_at' | 'url' | 'result';
  sort: 'asc' | 'desc';
  perPage: number;
  offset: number;
}

const sortColumn = { id: 'id', generated_at: 'generatedAt', url: 'url', result: 'score' } as const;

/**
 * Counts the matching reports exactly: without a search from the project aggregates (no
 * scan of reports), with one by the trigram-indexed search on the lowered URL.
 */
export async function countReportList(em: EntityManager, userId: number, q: ReportListQuery): Promise<number> {
  if (!q.search) return countReports(em, userId, { project: q.project, result: q.result });
  return em.count(ReportSchema, listWhere(userId, q));
}

/** One page of the user's reports, without their `results` detail. Ties sort by id. */
export async function listReports(em: EntityManager, userId: number, q: ReportListQuery): Promise<ReportSummary[]> {
  return findPage(em, userId, q, q.perPage);
}

/**
 * One page as plain rows: the ORM maps and converts the columns as it would for entities,
 * without building and tracking 100 of them (several times the cost of the query itself).
 */
async function findPage(em: EntityManager, userId: number, q: ReportListQuery, limit: number): Promise<ReportSummary[]> {
  return em
    .createQueryBuilder(ReportSchema)
    .select([...summaryFields])
    .where(listWhere(userId, q))
    .orderBy([{ [sortColumn[q.sortBy]]: q.sort }, ...(q.sortBy === 'id' ? [] : [{ id: q.sort }])])
    .limit(limit)
    .offset(q.offset)
    .execute<ReportSummary[]>('all');
}

function listWhere(userId: number, q: ReportListQuery) {
  return {
    user: userId,
    ...(q.project !== undefined ? { project: q.project } : {}),
    ...(q.result ? { result: q.result } : {}),
    // url ILIKE pattern, as a UTF-8 database computes it (lower() of both sides, then LIKE),
    // on the stored lowered URL: no lower() per row read.
    ...(q.search ? { urlLower: { $like: raw('lower(?)', [likeContains(q.search)]) } } : {}),
  };
}

/** The public shape of a report in lists: without the per-check `results`. */
export function describeReportSummary(r: ReportSummary) {
  return {
    id: r.id,
    url: r.url,
    project: r.project,
    result: r.result,
    score: r.score,
    privacy: r.privacy as number,
    password: Boolean(r.passwordHash),
    share_url: shareUrl(r.shareId),
    generated_at: r.generatedAt.toISOString(),
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

/** The public shape of one report (DESIGN section 5), with its per-check results. */
export function describeReport(r: Report) {
  return { ...describeReportSummary(r), results: r.results };
}
