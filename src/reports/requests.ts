/**
 * The report use cases: from a client's request to a stored report. Routers only map their
 * input here and the report to its public shape. Bad input is refused before any network
 * work (URL first, then the password rule, each checked once here).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Privacy, Report } from '../entities/report.entity.ts';
import { validationError } from '../errors.ts';
import type { ReportAnalyzer } from './analysis.ts';
import { hashPassword } from './passwords.ts';
import { createReport, getReport, updateReport, type PasswordChange } from './reports.ts';
import { parseReportUrl } from './urls.ts';
import { analyzeRuns } from './repeated-runs.ts';

export interface ReportDeps {
  em: EntityManager;
  analyzer: ReportAnalyzer;
}

/**
 * The password rule: a password only with privacy 2, and privacy 2 only with a password (a
 * new one, or the one the report keeps). Throws a 422 on `password`.
 */
function checkPasswordRule(privacy: Privacy, password: string | undefined, keepsOne: boolean): void {
  if (privacy !== 2 && password)
    throw validationError('password', 'The password applies only when privacy is 2 (Password).');
  if (privacy === 2 && !password && !keepsOne) {
    throw validationError('password', 'A password is required when privacy is 2 (Password).');
  }
}

export interface CreateReportRequest {
  url: string;
  privacy: Privacy;
  password?: string;
  /** Our extension: render in Chromium (true), not (false), or as ANALYZER_RENDER decides. */
  render?: boolean;
  /** Times the page is measured (1 when absent); the representative run is stored. */
  runs?: number;
}

/**
 * Checks the request, analyses the URL and stores the report (422 with `reason` when it cannot
 * be analysed). When `signal` aborts (the client went away), the analysis stops, frees its
 * slot, and nothing is stored.
 */
export async function createReportFromRequest(
  deps: ReportDeps,
  userId: number,
  input: CreateReportRequest,
  signal?: AbortSignal,
): Promise<Report> {
  const url = parseReportUrl(input.url);
  checkPasswordRule(input.privacy, input.password, false);
  const analysis = await analyzeRuns(
    deps.analyzer,
    url,
    { tenant: String(userId), render: input.render, signal },
    input.runs ?? 1,
  );
  return createReport(deps.em, userId, { privacy: input.privacy, password: input.password }, analysis);
}

export interface UpdateReportRequest {
  privacy?: Privacy;
  password?: string;
  /** Analyse the page again (`results=1`). */
  reanalyse: boolean;
  /** With `reanalyse`: render in Chromium or not (our extension). */
  render?: boolean;
  /** With `reanalyse`: times the page is measured. */
  runs?: number;
  /** Abandons the analysis when it aborts (the client went away); the report is left as it was. */
  signal?: AbortSignal;
}

/** Changes privacy or password, or analyses the page again; NOT_FOUND for another user's report. */
export async function updateReportFromRequest(
  deps: ReportDeps,
  userId: number,
  id: number,
  input: UpdateReportRequest,
): Promise<Report> {
  const current = await getReport(deps.em, userId, id);
  const privacy = input.privacy ?? current.privacy;
  const keepsOne = privacy === current.privacy && current.passwordHash !== null;
  checkPasswordRule(privacy, input.password, keepsOne);
  let password: PasswordChange = { kind: 'keep' };
  if (privacy !== 2) password = { kind: 'clear' };
  else if (input.password) password = { kind: 'set', hash: await hashPassword(input.password) };
  const analysis = input.reanalyse
    ? await analyzeRuns(
        deps.analyzer,
        parseReportUrl(current.fullUrl),
        { tenant: String(userId), render: input.render, signal: input.signal },
        input.runs ?? 1,
      )
    : undefined;
  return updateReport(deps.em, userId, id, { privacy: input.privacy, password, analysis });
}
