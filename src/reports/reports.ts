import { LockMode, raw } from '../db/mikro-orm.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ReportSchema, type Privacy, type Report, type ReportResult } from '../entities/report.entity.ts';
import { UserSchema } from '../entities/user.entity.ts';
import { notFound, validationError } from '../errors.ts';
import { hashPassword } from './passwords.ts';
import { addToProject, countReports, removeFromProject, type ReportContribution } from './projects.ts';
import { likeContains } from './pagination.ts';
import { countSearchTotal, knownSearchTotal, lockReportsOf } from './search-totals.ts';
import { shareUrl } from './share-page.ts';
import type { ReportResults } from './results.ts';
import { RawJson } from '../raw-json.ts';

const listFields = [
  'id',
  'url',
  'project',
  'result',
  'score',
  'privacy',
  'passwordHash',
  'shareId',
  'generatedAt',
  'createdAt',
  'updatedAt',
] as const;

/**
 * A report as lists load it, as plain data (lists load no entities): the listed columns and
 * `results` either parsed (single reads) or as the stored JSON text (lists).
 */
export type ReportRow<Results = Report['results']> = Pick<Report, (typeof listFields)[number]> & { results: Results };

/** A report as a list reads it: `results` as the stored JSON text. */
export type ListedReport = ReportRow<RawJson>;

function contribution(
  r: Pick<Report, 'project' | 'score' | 'result' | 'createdAt'>,
  userId: number,
): ReportContribution {
  return { userId, project: r.project, score: r.score, result: r.result, createdAt: r.createdAt };
}

/** What an analysis stores: `url` as phpRank keeps it, the project, the grade and the results. */
export interface StoredAnalysis {
  url: string;
  project: string;
  score: number;
  result: ReportResult;
  results: ReportResults;
}

/**
 * A password decision taken once, by the report use case (src/reports/requests.ts): keep the
 * stored hash, set a new one, or clear it.
 */
export type PasswordChange = { kind: 'keep' } | { kind: 'set'; hash: string } | { kind: 'clear' };

/**
 * Stores a new report for an analysis, and counts it in its project, in one transaction.
 * The password rule is the caller's (src/reports/requests.ts); this only hashes it.
 */
export async function createReport(
  em: EntityManager,
  userId: number,
  input: { privacy: Privacy; password?: string },
  analysis: StoredAnalysis,
): Promise<Report> {
  const passwordHash = input.privacy === 2 && input.password ? await hashPassword(input.password) : null;
  return em.transactional(async (tx) => {
    await lockReportsOf(tx, userId);
    const now = new Date();
    const report = tx.create(ReportSchema, {
      user: tx.getReference(UserSchema, userId),
      url: analysis.url,
      project: analysis.project,
      result: analysis.result,
      score: analysis.score,
      results: analysis.results,
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
  password: PasswordChange;
  /** A fresh analysis when `results=1` was asked for. */
  analysis?: StoredAnalysis;
}

/**
 * Applies privacy, password and a re-analysis. The row is locked for the transaction so
 * concurrent updates cannot double-count project aggregates; a new final host moves the
 * report to another project.
 */
export async function updateReport(
  em: EntityManager,
  userId: number,
  id: number,
  change: ReportUpdate,
): Promise<Report> {
  return em.transactional(async (tx) => {
    await lockReportsOf(tx, userId);
    const report = await tx.findOne(ReportSchema, { id, user: userId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!report) throw notFound('Report');
    if (change.privacy !== undefined) report.privacy = change.privacy;
    if (change.password.kind === 'set') report.passwordHash = change.password.hash;
    if (change.password.kind === 'clear') report.passwordHash = null;
    // A concurrent update may have cleared the hash this one meant to keep.
    if (report.privacy === 2 && !report.passwordHash) {
      throw validationError('password', 'A password is required when privacy is 2 (Password).');
    }
    if (change.analysis) {
      const before = contribution(report, userId);
      const a = change.analysis;
      report.url = a.url;
      report.project = a.project;
      report.score = a.score;
      report.result = a.result;
      report.results = a.results;
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
    await lockReportsOf(tx, userId);
    const report = await tx.findOne(
      ReportSchema,
      { id, user: userId },
      { lockMode: LockMode.PESSIMISTIC_WRITE, exclude: ['results'] },
    );
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
 * scan of reports), with one by the trigram-indexed search on the lowered URL, kept for
 * {@link knownReportListTotal} while the user's reports stay as they are (search-totals.ts).
 */
export async function countReportList(em: EntityManager, userId: number, q: ReportListQuery): Promise<number> {
  if (!q.search) return countReports(em, userId, { project: q.project, result: q.result });
  return countSearchTotal(em, userId, searchFilter(q), (tx) => tx.count(ReportSchema, listWhere(userId, q)));
}

/**
 * The list's exact total when it costs no count: without a search from the aggregates, with
 * one when this state of the reports has been counted before; otherwise undefined.
 */
export async function knownReportListTotal(
  em: EntityManager,
  userId: number,
  q: ReportListQuery,
): Promise<number | undefined> {
  if (!q.search) return countReports(em, userId, { project: q.project, result: q.result });
  return knownSearchTotal(em, userId, searchFilter(q));
}

/**
 * One page of the user's reports, with their `results`. Ties sort by id. With the list's
 * exact `total` known, a page in the back half is read from the other end: page 100 of a
 * search matching 10,066 reports skips 66 rows instead of 9,900.
 */
export async function listReports(
  em: EntityManager,
  userId: number,
  q: ReportListQuery,
  total?: number,
): Promise<ListedReport[]> {
  const fromEnd = total !== undefined && q.offset > 0 && q.offset + q.perPage / 2 > total / 2;
  if (!fromEnd) return findPage(em, userId, q, q.sort, q.perPage, q.offset);
  // The same rows as [offset, offset + perPage) in the asked order, counted from the end.
  const limit = Math.min(q.perPage, total - q.offset);
  if (limit <= 0) return [];
  const rows = await findPage(em, userId, q, q.sort === 'asc' ? 'desc' : 'asc', limit, total - q.offset - limit);
  return rows.reverse();
}

/**
 * One page as plain rows: the ORM maps and converts the columns as it would for entities,
 * without building and tracking 100 of them (several times the cost of the query itself).
 */
async function findPage(
  em: EntityManager,
  userId: number,
  q: ReportListQuery,
  sort: 'asc' | 'desc',
  limit: number,
  offset: number,
): Promise<ListedReport[]> {
  // The page's ids first: a cast in the same query would be computed (detoasting every stored
  // result) for each row the OFFSET skips too.
  const ids = (
    await em
      .createQueryBuilder(ReportSchema)
      .select(['id'])
      .where(listWhere(userId, q))
      .orderBy([{ [sortColumn[q.sortBy]]: sort }, ...(q.sortBy === 'id' ? [] : [{ id: sort }])])
      .limit(limit)
      .offset(offset)
      .execute<Array<{ id: number }>>('all')
  ).map((r) => r.id);
  if (!ids.length) return [];
  // `results` as text: 100 stored results are 0.5-1 MB of JSON; parsing them only to write
  // them out again would cost more than the whole query (see bench/reports-list-results.ts).
  const rows = await em
    .createQueryBuilder(ReportSchema)
    .select([...listFields, raw('"results"::text as "results_json"')])
    .where({ user: userId, id: { $in: ids } })
    .execute<Array<Omit<ListedReport, 'results'> & { results_json: string }>>('all');
  const byId = new Map(
    rows.map(({ results_json, ...row }) => [row.id, { ...row, results: new RawJson(results_json) }]),
  );
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** What a search total depends on besides the user. */
function searchFilter(q: ReportListQuery): unknown[] {
  return [q.search, q.project ?? null, q.result ?? null];
}

function listWhere(userId: number, q: ReportListQuery) {
  return {
    user: userId,
    ...(q.project !== undefined ? { project: q.project } : {}),
    ...(q.result ? { result: q.result } : {}),
    // url ILIKE pattern, as a UTF-8 database computes it (lower() of both sides, then LIKE),
    // on the stored lowered URL: no lower() per row read.
    ...(q.search ? { urlLower: { $like: raw<object, string>('lower(?)', [likeContains(q.search)]) } } : {}),
  };
}

/**
 * phpRank's field order (ReportResource), with our `score` after `result` and `share_url`,
 * absolute under `publicUrl` when PUBLIC_URL is set.
 */
function describeFields<T>(r: Omit<ReportRow, 'results'>, results: T, publicUrl?: string) {
  return {
    id: r.id,
    url: r.url,
    project: r.project,
    result: r.result,
    score: r.score,
    results,
    privacy: r.privacy as number,
    password: Boolean(r.passwordHash),
    share_url: shareUrl(r.shareId, publicUrl),
    generated_at: r.generatedAt.toISOString(),
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

/** The public shape of a report (DESIGN section 5: phpRank's fields plus `score` and `share_url`). */
export function describeReport(r: ReportRow, publicUrl?: string) {
  return describeFields(r, r.results as ReportResults, publicUrl);
}

/** The same shape for a list item, its `results` written out as stored. */
export function describeListedReport(r: ListedReport, publicUrl?: string) {
  return describeFields(r, r.results, publicUrl);
}
