import { z } from 'zod';
import { apiKeyProcedure, router } from './trpc.ts';
import { deleted, okStatus, oneOf, pageNumber, paginated, perPage, searchTerm, sortDirection } from './schemas.ts';
import {
  countReportList,
  knownReportListTotal,
  deleteReport,
  describeListedReport,
  describeReport,
  getReport,
  listReports,
} from '../src/reports/reports.ts';
import { createReportFromRequest, updateReportFromRequest } from '../src/reports/requests.ts';
import { buildPage, listPath, pageWindow } from '../src/reports/pagination.ts';
import { storedUrlSearch } from '../src/reports/urls.ts';
import { notFound, validationError } from '../src/errors.ts';
import { assertReport } from '../src/budgets/assert-report.ts';
import { budgetInput, toStoredGroups } from '../src/budgets/budget.ts';
import { assertionOutcome } from './budget-schemas.ts';
import { parseId as parseNumericId } from '../src/input/ids.ts';
import { RawJson } from '../src/raw-json.ts';
import type { Privacy } from '../src/entities/report.entity.ts';

const grade = z.enum(['good', 'decent', 'bad']);
/** One check of `results`, keyed by its id (phpRank's ids; extras under their own). */
const resultEntry = z.object({
  passed: z.boolean(),
  importance: z.enum(['high', 'medium', 'low']),
  value: z.unknown(),
  errors: z.record(z.string(), z.unknown()).optional(),
  category: z.enum(['seo', 'performance', 'security', 'miscellaneous', 'accessibility']).meta({
    description:
      'phpRank’s four sections; `accessibility` (our extension) only on rendered reports, not part of `score` (docs/reports.md).',
  }),
  details: z.array(z.unknown()),
  /** Our extension: true when the check ran on the page as Chromium rendered it. */
  rendered: z.literal(true).optional(),
});
const accessibilityCounts = {
  score: z.number().int().nullable(),
  passed: z.number().int(),
  failed: z.number().int(),
  needs_review: z.number().int(),
  not_applicable: z.number().int(),
};
/** Our extension beside phpRank's keys: the category summaries (docs/reports.md). */
const reportCategories = z
  .object({
    performance: z.discriminatedUnion('status', [
      z.object({ status: z.literal('measured'), score: z.number() }),
      z.object({ status: z.literal('needs_rendering') }),
    ]),
    accessibility: z.discriminatedUnion('status', [
      z.object({ status: z.literal('measured'), ...accessibilityCounts }),
      z.object({ status: z.literal('needs_rendering') }),
      z.object({ status: z.literal('not_measured') }),
    ]),
  })
  .meta({
    description:
      'Category summaries: performance (the lab score of a rendered report) and accessibility (Lighthouse’s score and rule counts); `needs_rendering` when the report was not rendered, `not_measured` when axe could not run.',
  });
const metricStats = z.object({
  runs: z.number().int(),
  median: z.number(),
  min: z.number(),
  max: z.number(),
  iqr: z.number(),
});
/** Our extension: the runs' lab figures' median and spread (docs/audits.md, "Repeated runs"). */
const labStats = z
  .object({
    runs: z.number().int(),
    metrics: z.object({
      fcp: metricStats.optional(),
      lcp: metricStats.optional(),
      tbt: metricStats.optional(),
      cls: metricStats.optional(),
      score: metricStats.optional(),
      bytes: metricStats.optional(),
    }),
  })
  .nullable()
  .meta({
    description:
      'How many times the page was measured and each lab metric’s median and spread; null when not rendered.',
  });
const report = z.object({
  id: z.number().int(),
  url: z.string(),
  project: z.string(),
  result: grade,
  score: z.number().int(),
  results: z.record(z.string(), resultEntry),
  categories: reportCategories,
  lab: labStats,
  privacy: z.number().int(),
  password: z.boolean(),
  /** The share page (public, or password-protected); a private report's page is a 404 until it is shared. */
  share_url: z.string(),
  generated_at: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
const single = z.object({ data: report, status: okStatus });
/** List items carry the stored results as JSON text, written out unparsed; documented as `results`. */
const listedResults = z
  .custom<RawJson>((v) => v instanceof RawJson, { error: 'results must be stored JSON' })
  .meta({ override: z.toJSONSchema(z.record(z.string(), resultEntry), { io: 'output' }) as Record<string, unknown> });
const listItem = report.extend({ results: listedResults });

const privacy = oneOf('privacy', ['0', '1', '2']).transform((v) => Number(v) as Privacy);
const password = z
  .string()
  .max(200)
  .optional()
  .transform((v) => (v === '' ? undefined : v));
/** Our extension (not in the specification): render=1 renders the page in Chromium, render=0 does not; absent, ANALYZER_RENDER decides. */
const render = oneOf('render', ['0', '1'])
  .optional()
  .transform((v) => (v === undefined ? undefined : v === '1'));
/** Our extension: how many times the page is measured (each run's lab figures kept; docs/audits.md). */
const runs = z.coerce.number().int().min(1).optional();

/** `runs` within ANALYZER_MAX_RUNS, else a 422 on `runs`. */
function checkRuns(runs: number | undefined, max: number): number {
  if (runs !== undefined && runs > max) throw validationError('runs', `At most ${max} runs (ANALYZER_MAX_RUNS).`);
  return runs ?? 1;
}

/** Path ids are digits; anything else names no report (404, never a validation error). */
const reportId = z.coerce.string();

function parseId(text: string): number {
  const id = parseNumericId(text);
  if (id === undefined) throw notFound('Report');
  return id;
}

export const reportsRouter = router({
  /** The caller's reports, paginated, filtered and sorted as the specification's table says (docs/reports.md). */
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
    .output(paginated(listItem))
    .query(async ({ ctx, input }) => {
      const query = {
        // `url` is stored without scheme and www. (as phpRank): a pasted full address still matches.
        search: input.search ? storedUrlSearch(input.search) || undefined : undefined,
        project: input.project || undefined,
        result: input.result,
        sortBy: input.sort_by,
        sort: input.sort,
        perPage: input.per_page,
        offset: (input.page - 1) * input.per_page,
      };
      // The total first when it costs no count (aggregates, or a search counted before in
      // this state of the reports): it tells whether the page is empty before any row is read,
      // and lets a back-half page be read from the end. A search never counted is counted
      // while its page is read, the two taking similar time.
      const known = await knownReportListTotal(ctx.em, ctx.user.id, query);
      const [total, found] =
        known !== undefined
          ? [known, undefined]
          : await Promise.all([countReportList(ctx.em, ctx.user.id, query), listReports(ctx.em, ctx.user.id, query)]);
      const rows = pageWindow(input.page, input.per_page, total).empty
        ? []
        : (found ?? (await listReports(ctx.em, ctx.user.id, query, total)));
      const page = buildPage(
        rows.map((r) => describeListedReport(r, ctx.config.PUBLIC_URL)),
        {
          page: input.page,
          perPage: input.per_page,
          total,
          path: listPath(ctx.config.PUBLIC_URL, '/api/v1/reports'),
          query: {
            search: input.search || undefined,
            search_by: input.search_by,
            project: query.project,
            result: input.result,
            sort_by: input.sort_by,
            sort: input.sort,
            per_page: input.per_page,
          },
        },
      );
      return { ...page, status: 200 as const };
    }),

  /** One report with its per-check results. */
  get: apiKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/api/v1/reports/{id}', summary: 'Read a report', tags: ['reports'] } })
    .input(z.object({ id: reportId }))
    .output(single)
    .query(async ({ ctx, input }) => ({
      data: describeReport(await getReport(ctx.em, ctx.user.id, parseId(input.id)), ctx.config.PUBLIC_URL),
      status: 200 as const,
    })),

  /** Fetches and audits the URL, then stores the report. */
  create: apiKeyProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/reports',
        summary: 'Create a report',
        tags: ['reports'],
        contentTypes: ['application/x-www-form-urlencoded', 'application/json'],
      },
      successStatus: 201,
      errorCodes: ['ERR_ANALYSIS_FAILED', 'ERR_ANALYZER_BUSY', 'ERR_ANALYZER_KEY_BUSY'],
    })
    .input(z.object({ url: z.string(), privacy: privacy.default(1), password, render, runs }))
    .output(single)
    .mutation(async ({ ctx, input }) => {
      const created = await createReportFromRequest(
        ctx,
        ctx.user.id,
        { ...input, runs: checkRuns(input.runs, ctx.config.ANALYZER_MAX_RUNS) },
        ctx.request.signal,
      );
      return { data: describeReport(created, ctx.config.PUBLIC_URL), status: 200 as const };
    }),

  /** Changes privacy or password, or re-runs the analysis with results=1. */
  update: apiKeyProcedure
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/v1/reports/{id}',
        summary: 'Update a report (PUT or PATCH)',
        tags: ['reports'],
        contentTypes: ['application/x-www-form-urlencoded', 'application/json'],
      },
      aliasMethods: ['PATCH'],
      errorCodes: ['ERR_ANALYSIS_FAILED', 'ERR_ANALYZER_BUSY', 'ERR_ANALYZER_KEY_BUSY'],
    })
    .input(
      z.object({
        id: reportId,
        privacy: privacy.optional(),
        password,
        results: oneOf('results', ['0', '1']).default('0'),
        render,
        runs,
      }),
    )
    .output(single)
    .mutation(async ({ ctx, input }) => {
      const updated = await updateReportFromRequest(ctx, ctx.user.id, parseId(input.id), {
        privacy: input.privacy,
        password: input.password,
        reanalyse: input.results === '1',
        render: input.render,
        runs: checkRuns(input.runs, ctx.config.ANALYZER_MAX_RUNS),
        signal: ctx.request.signal,
      });
      return { data: describeReport(updated, ctx.config.PUBLIC_URL), status: 200 as const };
    }),

  /**
   * Asserts a budget (a lighthouserc, its `assert` section, or ours) on the report and, with
   * `baseline`, tests its runs against the baseline's (docs/audits.md).
   */
  assert: apiKeyProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/reports/{id}/assert',
        summary: 'Assert a budget on a report',
        tags: ['reports'],
        contentTypes: ['application/json'],
      },
    })
    .input(
      z.object({
        id: reportId,
        budget: budgetInput.optional(),
        baseline: z
          .union([z.literal('last'), z.coerce.number().int().min(1)])
          .optional()
          .meta({
            description: 'A report id, or `last`: the newest earlier report of the same address with lab runs.',
          }),
      }),
    )
    .output(z.object({ data: assertionOutcome, status: okStatus }))
    .mutation(async ({ ctx, input }) => ({
      data: await assertReport(
        ctx.em,
        ctx.user.id,
        parseId(input.id),
        input.budget ? toStoredGroups(input.budget) : [],
        input.baseline,
      ),
      status: 200 as const,
    })),

  /** Deletes the report. */
  delete: apiKeyProcedure
    .meta({
      openapi: { method: 'DELETE', path: '/api/v1/reports/{id}', summary: 'Delete a report', tags: ['reports'] },
    })
    .input(z.object({ id: reportId }))
    .output(deleted('report', z.number().int()))
    .mutation(async ({ ctx, input }) => {
      const id = parseId(input.id);
      await deleteReport(ctx.em, ctx.user.id, id);
      return { id, object: 'report' as const, deleted: true as const, status: 200 as const };
    }),
});
