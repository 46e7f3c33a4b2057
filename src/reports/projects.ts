import { LockMode } from '../db/mikro-orm.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ProjectSchema, type Project } from '../entities/project.entity.ts';
import { ReportSchema } from '../entities/report.entity.ts';
import type { ReportResult } from '../entities/report.entity.ts';
import { gradeOf } from '../analyzer/scoring.ts';
import { likeContains } from './pagination.ts';
import { lockReportsOf } from './search-totals.ts';
import { sql } from './sql.ts';

/** What a report contributes to its project's aggregates. */
export interface ReportContribution {
  userId: number;
  project: string;
  score: number;
  result: ReportResult;
  createdAt: Date;
}

const resultColumn: Record<ReportResult, string> = { good: 'good_count', decent: 'decent_count', bad: 'bad_count' };

/** Adds a report to its project, creating the project on its first report. Call inside the report's transaction. */
export async function addToProject(em: EntityManager, c: ReportContribution): Promise<void> {
  const col = resultColumn[c.result];
  await sql(
    em,
    `insert into projects (user_id, name, reports_count, score_sum, good_count, decent_count, bad_count, created_at)
     values (?, ?, 1, ?, ?, ?, ?, ?)
     on conflict (user_id, name) do update set
       reports_count = projects.reports_count + 1,
       score_sum = projects.score_sum + excluded.score_sum,
       ${col} = projects.${col} + 1,
       created_at = least(projects.created_at, excluded.created_at)`,
    [
      c.userId,
      c.project,
      c.score,
      c.result === 'good' ? 1 : 0,
      c.result === 'decent' ? 1 : 0,
      c.result === 'bad' ? 1 : 0,
      c.createdAt,
    ],
  );
}

/**
 * Removes a report (already deleted or moved) from its project's aggregates; deletes the
 * project when it has no reports left, else recomputes its earliest report time.
 */
export async function removeFromProject(em: EntityManager, c: ReportContribution): Promise<void> {
  const col = resultColumn[c.result];
  const rows = await sql(
    em,
    `update projects set reports_count = reports_count - 1, score_sum = score_sum - ?, ${col} = ${col} - 1
     where user_id = ? and name = ? returning id, reports_count`,
    [c.score, c.userId, c.project],
  );
  const row = rows[0];
  if (!row) return;
  if (Number(row.reports_count) <= 0) {
    await sql(em, 'delete from projects where id = ?', [row.id]);
    return;
  }
  await sql(
    em,
    `update projects set created_at = (select created_at from reports where user_id = ? and project = ? order by id limit 1) where id = ?`,
    [c.userId, c.project, row.id],
  );
}

/** Report count of a user's lists without a search, from the aggregates (no scan of reports). */
export async function countReports(
  em: EntityManager,
  userId: number,
  filter: { project?: string; result?: ReportResult },
): Promise<number> {
  const col = filter.result ? resultColumn[filter.result] : 'reports_count';
  const rows = await sql(
    em,
    `select coalesce(sum(${col}), 0) as total from projects where user_id = ?${filter.project !== undefined ? ' and name = ?' : ''}`,
    filter.project !== undefined ? [userId, filter.project] : [userId],
  );
  return Number(rows[0]?.total ?? 0);
}

export interface ProjectListQuery {
  search?: string;
  sortBy: 'created_at' | 'project';
  sort: 'asc' | 'desc';
  perPage: number;
  offset: number;
}

/** One page of a user's projects and their total. Sorting is stable (ties by id). */
export async function listProjects(
  em: EntityManager,
  userId: number,
  q: ProjectListQuery,
): Promise<{ rows: Project[]; total: number }> {
  const where = q.search ? { user: userId, name: { $ilike: likeContains(q.search) } } : { user: userId };
  const column = q.sortBy === 'project' ? 'name' : 'createdAt';
  const [rows, total] = await em.findAndCount(ProjectSchema, where, {
    orderBy: [{ [column]: q.sort }, { id: q.sort }],
    limit: q.perPage,
    offset: q.offset,
  });
  return { rows, total };
}

/** The public shape of a project (docs/api.md). */
export function describeProject(p: Project) {
  const count = p.reportsCount;
  const score = count ? Math.round(Number(p.scoreSum) / count) : 0;
  return { project: p.name, reports: count, score, result: gradeOf(score), created_at: p.createdAt.toISOString() };
}

/** Deletes a project and all its reports in one transaction. Returns false when the user has no such project. */
export async function deleteProject(em: EntityManager, userId: number, name: string): Promise<boolean> {
  return em.transactional(async (tx) => {
    await lockReportsOf(tx, userId);
    const project = await tx.findOne(ProjectSchema, { user: userId, name }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!project) return false;
    await tx.nativeDelete(ReportSchema, { user: userId, project: name });
    await tx.nativeDelete(ProjectSchema, { id: project.id });
    return true;
  });
}
