import { z } from 'zod';
import { apiKeyProcedure, router } from './trpc.ts';
import { deleted, oneOf, pageNumber, paginated, perPage, searchTerm, sortDirection } from './schemas.ts';
import {
  checkPasswordRule,
  countReportList,
  createReport,
  deleteReport,
  describeReport,
  describeReportSummary,
  getReport,
  listReports,
  updateReport,
} from '../src/reports/reports.ts';
import { buildPage, pageWindow } from '../src/reports/pagination.ts';
import { parseReportUrl } from '../src/reports/urls.ts';
import { notFound } from '../src/errors.ts';
import type { Privacy } from '../src/entities/report.entity.ts';

const grade = z.enum(['good', 'decent', 'bad']);
const reportBase = {
  id: z.number().int(),
  url: z.string(),
  project: z.string(),
  result: grade,
  score: z.number().int(),
  privacy: z.number().int(),
  password: z.boolean(),
  generated_at: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
};
const reportItem = z.object(reportBase);
const reportFull = z.object({ ...reportBase, results: z.record(z.string(), z.array(z.unknown())) });
const single = z.object({ data: reportFull });

const privacy = oneOf('privacy', ['0', '1', '2']).transform((v) => Number(v) as Privacy);
const password = z.string().max(200).optional().transform((v) => (v === '' ? undefined : v));
/** Our extension (not in SPEC.md): render=1 renders the page in Chromium, render=0 does not; absent, ANALYZER_RENDER decides. */
const render = oneOf('render', ['0', '1']).optional().transform((v) => (v === undefined ? undefined : v === '1'));
/** Path ids are digits; anything else names no report (404, never a validation error). */
const reportId = z.coerce.string();

function parseId(id: string): number {
  if (!/^[1-9]\d{0,9}$/.test(id) || Number(id) > 2_147_483_647) throw notFound('Report');
  return Number(id);
}

export const reportsRouter = router({
  /** The caller's reports, paginated, filtered and sorted as SPEC.md's table says. */
  list: apiKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/api/v1/reports', summary: 'List reports', tags: ['reports'] } })
    .input(
      z.object({
        search: searchTerm,
        search_by: oneOf('search_by', ['url']).default('url'),
        project: z.string().max(253).optional(),
        result: oneOf('result', ['good', 'decent', 'bad']).optional(),
        sort_by: oneOf('sort_by', ['id', 'generated_at', 'url', 'result']).default('id'),
        sort: sortDirection,
        per_page: perPage,
        page: pageNumber,
      }),
    )
    .output(paginated(reportItem))
    .query(async ({ ctx, input }) => {
      const query = {
        search: input.search || undefined,
        project: input.project || undefined,
        result: input.result,
        sortBy: input.sort_by,
        sort: input.sort,
        perPage: input.per_page,
        offset: (input.page - 1) * input.per_page,
      };
      // Without a search the total comes from aggregates and tells whether the page is empty
      // before any row is read; with one, counting and reading the page take similar time,
      // so both run at once.
      const [total, found] = query.search
        ? await Promise.all([countReportList(ctx.em, ctx.user.id, query), listReports(ctx.em, ctx.user.id, query)])
        : [await countReportList(ctx.em, ctx.user.id, query), undefined];
      const rows = pageWindow(input.page, input.per_page, total).empty ? [] : (found ?? (await listReports(ctx.em, ctx.user.id, query)));
      return buildPage(rows.map((r) => describeReportSummary(r)), {
        page: input.page,
        perPage: input.per_page,
        total,
        path: `${ctx.request.baseUrl ?? ''}/api/v1/reports`,
        query: {
          search: query.search,
          search_by: input.search_by,
          project: query.project,
          result: input.result,
          sort_by: input.sort_by,
          sort: input.sort,
          per_page: input.per_page,
        },
      });
    }),

  /** One report with its per-check results. */
  get: apiKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/api/v1/reports/{id}', summary: 'Read a report', tags: ['reports'] } })
    .input(z.object({ id: reportId }))
    .output(single)
    .query(async ({ ctx, input }) => ({ data: describeReport(await getReport(ctx.em, ctx.user.id, parseId(input.id))) })),

  /** Fetches and audits the URL, then stores the report. */
  create: apiKeyProcedure
    .meta({
      openapi: { method: 'POST', path: '/api/v1/reports', summary: 'Create a report', tags: ['reports'], contentTypes: ['application/x-www-form-urlencoded', 'application/json'] },
      successStatus: 201,
    })
    .input(z.object({ url: z.string().max(4096), privacy: privacy.default(1), password, render }))
    .output(single)
    .mutation(async ({ ctx, input }) => {
      const url = parseReportUrl(input.url);
      checkPasswordRule(input.privacy, input.password, false);
      const analysis = await ctx.analyzer.analyze(url, { render: input.render });
      const report = await createReport(ctx.em, ctx.user.id, { privacy: input.privacy, password: input.password }, analysis);
      return { data: describeReport(report) };
    }),

  /** Changes privacy or password, or re-runs the analysis with results=1. */
  update: apiKeyProcedure
    .meta({
      openapi: { method: 'PUT', path: '/api/v1/reports/{id}', summary: 'Update a report', tags: ['reports'], contentTypes: ['application/x-www-form-urlencoded', 'application/json'] },
    })
    .input(z.object({ id: reportId, privacy: privacy.optional(), password, results: oneOf('results', ['0', '1']).default('0'), render }))
    .output(single)
    .mutation(async ({ ctx, input }) => {
      const id = parseId(input.id);
      const current = await getReport(ctx.em, ctx.user.id, id);
      const privacy = input.privacy ?? current.privacy;
      checkPasswordRule(privacy, input.password, privacy === current.privacy && current.passwordHash !== null);
      const analysis = input.results === '1' ? await ctx.analyzer.analyze(current.url, { render: input.render }) : undefined;
      const report = await updateReport(ctx.em, ctx.user.id, id, { privacy: input.privacy, password: input.password, analysis });
      return { data: describeReport(report) };
    }),

  /** Deletes the report. */
  delete: apiKeyProcedure
    .meta({ openapi: { method: 'DELETE', path: '/api/v1/reports/{id}', summary: 'Delete a report', tags: ['reports'] } })
    .input(z.object({ id: reportId }))
    .output(deleted('report', z.number().int()))
    .mutation(async ({ ctx, input }) => {
      const id = parseId(input.id);
      await deleteReport(ctx.em, ctx.user.id, id);
      return { id, object: 'report' as const, deleted: true as const };
    }),
});
