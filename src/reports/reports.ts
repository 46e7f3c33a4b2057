import { LockMode } from '../db/mikro-orm.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ReportSchema,
  type LabStatsColumn,
  type Privacy,
  type Report,
  type ReportResult,
} from '../entities/report.entity.ts';
import { UserSchema } from '../entities/user.entity.ts';
import { notFound, validationError } from '../errors.ts';
import { hashPassword } from './passwords.ts';
import { addToProject, countReports, removeFromProject, type ReportContribution } from './projects.ts';
import { likeContains } from './pagination.ts';
import { countSearchTotal, knownSearchTotal, lockReportsOf } from './search-totals.ts';
import { sql } from './sql.ts';
import { shareUrl } from './share-address.ts';
import type { ReportResults } from './results.ts';
import { RawJson } from '../raw-json.ts';
import { LabSampleSchema } from '../entities/lab-sample.entity.ts';
import { categoriesOf, type ReportCategories } from './categories.ts';
import { labFiguresOf, labStatsOf, type LabFigures } from './lab-samples.ts';

/** The fields a list item shows besides `results` (findPage selects their columns). */
type ListField =
  | 'id'
  | 'url'
  | 'project'
  | 'result'
  | 'score'
  | 'privacy'
  | 'passwordHash'
  | 'shareId'
  | 'generatedAt'
  | 'createdAt'
  | 'updatedAt'
  | 'categories'
  | 'labStats';

/**
 * A report as lists load it, as plain data (lists load no entities): the listed columns and
 * `results` either parsed (single reads) or as the stored JSON text (lists).
 */
export type ReportRow<Results = Report['results']> = Pick<Report, ListField> & { results: Results };

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
  /** phpRank's short form of the final address. */
  url: string;
  /** The final address in full. */
  fullUrl: string;
  project: string;
  score: number;
  result: ReportResult;
  results: ReportResults;
  /** Each run's lab figures (several when the page was measured N times); absent: from `results`. */
  samples?: LabFigures[];
}

/** The lab samples of an analysis: its runs', or its one run's when rendered. */
function samplesOf(a: StoredAnalysis): LabFigures[] {
  if (a.samples) return a.samples;
  const one = labFiguresOf(a.results);
  return one ? [one] : [];
}

/** The columns an analysis sets on its report besides phpRank's. */
function derivedColumns(a: StoredAnalysis, samples: LabFigures[]) {
  return {
    categories: categoriesOf(a.results),
    labStats: samples.length ? { runs: samples.length, metrics: labStatsOf(samples) } : null,
  };
}

/** Replaces a report's lab samples (in `tx`). */
async function storeSamples(tx: EntityManager, reportId: number, samples: LabFigures[]): Promise<void> {
  await tx.nativeDelete(LabSampleSchema, { report: reportId });
  for (const [run, f] of samples.entries()) tx.create(LabSampleSchema, { report: reportId, run, ...f });
  await tx.flush();
}

/** A report's runs' lab figures, in run order. */
export async function labSamplesOf(em: EntityManager, reportId: number): Promise<LabFigures[]> {
  const rows = await em.find(LabSampleSchema, { report: reportId }, { orderBy: { run: 'asc' } });
  const n = (v: number | null | undefined) => v ?? null;
  return rows.map((r) => ({
    fcp: n(r.fcp),
    lcp: n(r.lcp),
    tbt: n(r.tbt),
    cls: n(r.cls),
    score: n(r.score),
    bytes: n(r.bytes),
  }));
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
  const samples = samplesOf(analysis);
  return em.transactional(async (tx) => {
    await lockReportsOf(tx, userId);
    const now = new Date();
    const report = tx.create(ReportSchema, {
      user: tx.getReference(UserSchema, userId),
      url: analysis.url,
      fullUrl: analysis.fullUrl,
      project: analysis.project,
      result: analysis.result,
      score: analysis.score,
      results: analysis.results,
      ...derivedColumns(analysis, samples),
      privacy: input.privacy,
      passwordHash,
      generatedAt: now,
      createdAt: now,
      updatedAt: now,
    });
    await tx.flush();
    await storeSamples(tx, report.id, samples);
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
      report.fullUrl = a.fullUrl;
      report.project = a.project;
      report.score = a.score;
      report.result = a.result;
      report.results = a.results;
      const samples = samplesOf(a);
      Object.assign(report, derivedColumns(a, samples));
      report.generatedAt = new Date();
      await tx.flush();
      await storeSamples(tx, report.id, samples);
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

/**
 * Counts the matching reports exactly: without a search from the project aggregates (no
 * scan of reports), with one by the trigram-indexed search on the lowered URL, kept for
 * {@link knownReportListTotal} while the user's reports stay as they are (search-totals.ts).
 */
export async function countReportList(em: EntityManager, userId: number, q: ReportListQuery): Promise<number> {
  if (!q.search) return countReports(em, userId, { project: q.project, result: q.result });
  const { where, params } = listWhereSql(userId, q);
  return countSearchTotal(em, userId, searchFilter(q), async (tx) => {
    const rows = await sql(tx, `select count(*)::int as n from reports where ${where}`, params);
    return Number(rows[0].n);
  });
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

/** The column of each sort, as SQL. */
const sortSql = { id: 'id', generated_at: 'generated_at', url: 'url', result: 'score' } as const;

/**
 * One page as plain rows, in one statement: the page's ids first (index order, LIMIT and
 * OFFSET, no row read but the ids), then those rows with `results` as text, in that order. A
 * cast in the id scan would be computed (detoasting every stored result) for each row the
 * OFFSET skips too. Written as SQL, not through the ORM's query builder: building and mapping
 * two queries was a sixth of a list request's CPU, for 100 rows that are only written out.
 */
async function findPage(
  em: EntityManager,
  userId: number,
  q: ReportListQuery,
  sort: 'asc' | 'desc',
  limit: number,
  offset: number,
): Promise<ListedReport[]> {
  const { where, params } = listWhereSql(userId, q);
  const order = q.sortBy === 'id' ? `id ${sort}` : `${sortSql[q.sortBy]} ${sort}, id ${sort}`;
  const rows = await sql(
    em,
    `select r.id, r.url, r.project, r.result, r.score, r.privacy, r.password_hash, r.share_id,
            ${epochMs('r.generated_at')} as generated_ms, ${epochMs('r.created_at')} as created_ms,
            ${epochMs('r.updated_at')} as updated_ms, r.results::text as results_json,
            r.categories::text as categories_json, r.lab_stats::text as lab_stats_json
     from unnest(array(select id from reports where ${where} order by ${order} limit ? offset ?))
          with ordinality as page(id, n)
     join reports r on r.id = page.id and r.user_id = ?
     order by page.n`,
    [...params, limit, offset, userId],
  );
  return rows.map((r) => ({
    id: r.id as number,
    url: r.url as string,
    project: r.project as string,
    result: r.result as ReportResult,
    score: r.score as number,
    privacy: r.privacy as Privacy,
    passwordHash: r.password_hash as string | null,
    shareId: r.share_id as string,
    generatedAt: new Date(r.generated_ms as number),
    createdAt: new Date(r.created_ms as number),
    updatedAt: new Date(r.updated_ms as number),
    // `results` as text: 100 stored results are 0.5-1 MB of JSON; parsing them only to write
    // them out again would cost more than the whole query (see bench/reports-list-results.ts).
    results: new RawJson(r.results_json as string),
    // Reports stored before the column have no summaries: theirs are computed from the results.
    categories: JSON.parse(
      (r.categories_json as string | null) ??
        JSON.stringify(categoriesOf(JSON.parse(r.results_json as string) as ReportResults)),
    ) as ReportCategories,
    labStats: r.lab_stats_json ? (JSON.parse(r.lab_stats_json as string) as LabStatsColumn) : null,
  }));
}

/**
 * A timestamp as whole unix milliseconds, truncated as a JavaScript Date truncates
 * microseconds (extract() is exact numeric), as a float8, which the driver hands over as a number.
 */
const epochMs = (column: string) => `floor(extract(epoch from ${column}) * 1000)::float8`;

/** What a search total depends on besides the user. */
function searchFilter(q: ReportListQuery): unknown[] {
  return [q.search, q.project ?? null, q.result ?? null];
}

/** The list's filter as SQL over `reports` and its parameters: one source for pages and counts. */
function listWhereSql(userId: number, q: ReportListQuery): { where: string; params: unknown[] } {
  let where = 'user_id = ?';
  const params: unknown[] = [userId];
  if (q.project !== undefined) {
    where += ' and project = ?';
    params.push(q.project);
  }
  if (q.result) {
    where += ' and result = ?';
    params.push(q.result);
  }
  // url ILIKE pattern, as a UTF-8 database computes it (lower() of both sides, then LIKE),
  // on the stored lowered URL: no lower() per row read.
  if (q.search) {
    where += ' and url_lower like lower(?)';
    params.push(likeContains(q.search));
  }
  return { where, params };
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
    categories:
      r.categories ??
      categoriesOf(
        results instanceof RawJson ? (JSON.parse(results.text) as ReportResults) : (results as ReportResults),
      ),
    lab: r.labStats ?? null,
    privacy: r.privacy as number,
    password: Boolean(r.passwordHash),
    share_url: shareUrl(r.shareId, publicUrl),
    generated_at: r.generatedAt.toISOString(),
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

/** The public shape of a report (docs/api.md: phpRank's fields plus `score` and `share_url`). */
export function describeReport(r: ReportRow, publicUrl?: string) {
  return describeFields(r, r.results as ReportResults, publicUrl);
}

/** The same shape for a list item, its `results` written out as stored. */
export function describeListedReport(r: ListedReport, publicUrl?: string) {
  return describeFields(r, r.results, publicUrl);
}
