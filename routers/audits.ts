import { z } from 'zod';
import { apiKeyProcedure, router } from './trpc.ts';
import { gatewayReportOutput, oneOf, pageNumber, paginated, perPage } from './schemas.ts';
import {
  cancelOrDelete,
  configureAudit,
  createAudit,
  describeAudit,
  describeRun,
  getAudit,
  latestRun,
  latestRuns,
  listAudits,
  listRuns,
  runPages,
} from '../src/audits/audits.ts';
import { buildPage, listPath } from '../src/reports/pagination.ts';
import { AppError, notFound } from '../src/errors.ts';
import { parseId as parseNumericId } from '../src/input/ids.ts';
import type { JobQueue } from '../src/queue/queue.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Audit } from '../src/entities/audit.entity.ts';
import { budgetOf, budgetsOf } from '../src/audits/budgets.ts';
import { budgetInput, toStoredGroups } from '../src/budgets/budget.ts';

const status = z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']);
const progress = z.object({ done: z.number().int(), failed: z.number().int(), total: z.number().int() });
/** Regressions against the baseline run (docs/audits.md, "Regressions"). */
const runRegressions = z
  .object({
    baseline_run: z.number().int(),
    pages: z.number().int(),
    metrics: z.array(
      z.object({
        metric: z.enum(['fcp', 'lcp', 'tbt', 'cls', 'score', 'bytes']),
        pages: z.array(
          z.object({
            url: z.string(),
            baseline_median: z.number(),
            median: z.number(),
            change: z.number(),
            p_value: z.number(),
          }),
        ),
      }),
    ),
  })
  .meta({
    description:
      'Metrics that regressed against the baseline run (one-sided Mann-Whitney U, p < 0.05, and at least the metric’s minimum effect), with the pages, both medians and the p-value; `pages` counts the pages tested.',
  });
const storedBudgetGroup = z.object({
  path: z.string().nullable(),
  url_pattern: z.string().nullable(),
  preset: z.enum(['lighthouse:recommended', 'lighthouse:no-pwa']).nullable(),
  aggregation_method: z.enum(['median', 'optimistic', 'pessimistic', 'median-run']).nullable(),
  assertions: z.record(z.string(), z.unknown()),
});
const summary = z
  .object({
    pages: z.number().int(),
    failed_pages: z.number().int(),
    score: z.number().int().nullable(),
    grades: z.object({ good: z.number().int(), decent: z.number().int(), bad: z.number().int() }),
    top_failing_checks: z.array(z.object({ check: z.string(), pages: z.number().int() })),
    /** Absent on runs finished before the accessibility category existed. */
    accessibility: z
      .object({
        status: z.enum(['measured', 'needs_rendering']),
        pages: z.number().int(),
        score: z.number().int().nullable(),
        top_failing_rules: z.array(z.object({ rule: z.string(), pages: z.number().int() })),
      })
      .optional()
      .meta({
        description:
          'The accessibility category over the run’s rendered pages (audit `render`): mean score, rules failing on the most pages; `needs_rendering` when no page was rendered.',
      }),
    budget: z
      .object({
        pages: z.number().int(),
        error_pages: z.number().int(),
        warning_pages: z.number().int(),
        top_failing: z.array(z.object({ key: z.string(), level: z.enum(['warn', 'error']), pages: z.number().int() })),
      })
      .optional()
      .meta({
        description:
          'The budget over the run’s pages: pages failing an error (or only a warning) assertion, the assertions failing on the most pages.',
      }),
    regressions: runRegressions.optional(),
    /** Present when the audited host is protected by a gateway site of the same account. */
    gateway: gatewayReportOutput.optional().meta({
      description:
        'What kinds of visitors get from the gateway rules protecting the audited host (docs/gateway.md, "The gateway report"); a check with `ok: false` names the rule that decided it.',
    }),
  })
  .nullable();
const audit = z.object({
  id: z.number().int(),
  url: z.string(),
  project: z.string(),
  status,
  max_pages: z.number().int(),
  render: z.boolean().nullable(),
  include: z.array(z.string()),
  exclude: z.array(z.string()),
  schedule: z.string().nullable(),
  timezone: z.string().nullable(),
  runs: z.number().int(),
  baseline_run_id: z.number().int().nullable(),
  budget: z.array(storedBudgetGroup),
  progress,
  summary,
  /** The latest run's id. */
  run_id: z.number().int().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
const page = z.object({
  url: z.string(),
  status: z.enum(['queued', 'done', 'failed']),
  report_id: z.number().int().nullable(),
  result: z.enum(['good', 'decent', 'bad']).nullable(),
  score: z.number().int().nullable(),
  error: z.string().nullable(),
  /** The page's budget outcome; null without a budget. */
  assertions: z
    .object({
      passed: z.number().int(),
      failed: z.number().int(),
      not_measured: z.number().int(),
      failing: z.array(
        z.object({
          key: z.string(),
          level: z.enum(['warn', 'error']),
          status: z.enum(['failed', 'not_measured']),
          actual: z.number().nullable(),
          expected: z.number(),
          name: z.string(),
        }),
      ),
    })
    .nullable(),
});
const run = z.object({
  id: z.number().int(),
  status,
  progress,
  summary,
  changes: z
    .object({
      previous_run: z.number().int().nullable(),
      pages_added: z.array(z.string()),
      pages_gone: z.array(z.string()),
      grades_moved: z.array(z.object({ url: z.string(), from: z.string(), to: z.string() })),
      newly_failing: z.array(z.object({ url: z.string(), checks: z.array(z.string()) })),
      fixed: z.array(z.object({ url: z.string(), checks: z.array(z.string()) })),
      /** Absent on runs finished before the accessibility category existed. */
      accessibility: z
        .object({
          newly_failing: z.array(z.object({ url: z.string(), rules: z.array(z.string()) })),
          fixed: z.array(z.object({ url: z.string(), rules: z.array(z.string()) })),
        })
        .optional()
        .meta({ description: 'Accessibility rules newly failing or fixed, per page (rendered pages only).' }),
    })
    .nullable(),
  error: z.string().nullable(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  created_at: z.string(),
});
const auditId = z.coerce.string();
/** Times each page is measured per run (docs/audits.md, "Repeated runs"). */
const runs = z.coerce.number().int().min(1).optional();

/** The public shape of an audit with its latest run and budget. */
async function described(em: EntityManager, a: Audit) {
  return describeAudit(a, await latestRun(em, a.id), await budgetOf(em, a.id));
}
/** A path pattern: `*` matches any characters (`/blog/*`). */
const patterns = z.preprocess(
  (v) => (typeof v === 'string' ? [v] : v),
  z.array(z.string().min(1).max(200).startsWith('/', { error: 'Path patterns start with /.' })).max(20),
);

function parseId(text: string): number {
  const id = parseNumericId(text);
  if (id === undefined) throw notFound('Audit');
  return id;
}

/** The shared queue; audits need it (an instance opened without one answers 503). */
function queueOf(ctx: { queue?: JobQueue }): JobQueue {
  if (!ctx.queue)
    throw new AppError('ERR_UNAVAILABLE', 'Site audits are not running on this instance.', { retryAfter: 60 });
  return ctx.queue;
}

export const auditsRouter = router({
  /** Starts auditing a whole site from `url` (our extension; docs/audits.md). */
  create: apiKeyProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/audits',
        summary: 'Audit a site',
        tags: ['audits'],
        contentTypes: ['application/json', 'application/x-www-form-urlencoded'],
      },
      successStatus: 202,
      errorCodes: ['ERR_UNAVAILABLE', 'ERR_AUDIT_LIMIT', 'ERR_SCHEDULE_TOO_FREQUENT', 'ERR_AUDIT_PAGE_BUDGET'],
    })
    .input(
      z.object({
        url: z.string(),
        max_pages: z.coerce.number().int().min(1).optional(),
        render: oneOf('render', ['0', '1'])
          .optional()
          .transform((v) => (v === undefined ? undefined : v === '1')),
        include: patterns.default([]),
        exclude: patterns.default([]),
        schedule: z.string().trim().min(1).max(128).optional(),
        timezone: z.string().trim().min(1).max(64).optional(),
        runs,
        budget: budgetInput.optional(),
      }),
    )
    .output(z.object({ data: audit, status: z.literal(202) }))
    .mutation(async ({ ctx, input }) => {
      const created = await createAudit(ctx.em, { config: ctx.config, queue: queueOf(ctx) }, ctx.user.id, {
        url: input.url,
        maxPages: input.max_pages,
        render: input.render,
        include: input.include,
        exclude: input.exclude,
        schedule: input.schedule,
        timezone: input.timezone,
        runs: input.runs,
        budget: input.budget ? toStoredGroups(input.budget) : undefined,
      });
      return { data: await described(ctx.em, created), status: 202 as const };
    }),

  /** The caller's audits, newest first. */
  list: apiKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/api/v1/audits', summary: 'List audits', tags: ['audits'] } })
    .input(z.object({ per_page: perPage, page: pageNumber }))
    .output(paginated(audit))
    .query(async ({ ctx, input }) => {
      const { rows, total } = await listAudits(ctx.em, ctx.user.id, input.per_page, (input.page - 1) * input.per_page);
      const ids = rows.map((a) => a.id);
      const latest = await latestRuns(ctx.em, ids);
      const budgets = await budgetsOf(ctx.em, ids);
      const data = rows.map((a) => describeAudit(a, latest.get(a.id) ?? null, budgets.get(a.id) ?? []));
      const built = buildPage(data, {
        page: input.page,
        perPage: input.per_page,
        total,
        path: listPath(ctx.config.PUBLIC_URL, '/api/v1/audits'),
        query: { per_page: input.per_page },
      });
      return { ...built, status: 200 as const };
    }),

  /** One audit: status, progress, summary and the pages of its latest run with their reports. */
  get: apiKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/api/v1/audits/{id}', summary: 'Read an audit', tags: ['audits'] } })
    .input(z.object({ id: auditId }))
    .output(z.object({ data: audit.extend({ pages: z.array(page) }), status: z.literal(200) }))
    .query(async ({ ctx, input }) => {
      const found = await getAudit(ctx.em, ctx.user.id, parseId(input.id));
      const latest = await latestRun(ctx.em, found.id);
      const pages = latest ? await runPages(ctx.em, latest.id) : [];
      return {
        data: {
          ...describeAudit(found, latest, await budgetOf(ctx.em, found.id)),
          pages: pages.map((p) => ({
            url: p.url,
            status: p.status,
            report_id: p.report?.id ?? null,
            result: p.result ?? null,
            score: p.score ?? null,
            error: p.error ?? null,
            assertions: p.assertions ?? null,
          })),
        },
        status: 200 as const,
      };
    }),

  /**
   * Sets the audit's budget (null removes it), runs per page and baseline run (null: the
   * previous completed run); the next run uses them.
   */
  configure: apiKeyProcedure
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/v1/audits/{id}/budget',
        summary: "Set an audit's budget, runs and baseline",
        tags: ['audits'],
        contentTypes: ['application/json'],
      },
    })
    .input(
      z.object({
        id: auditId,
        budget: budgetInput.nullable().optional(),
        runs,
        baseline_run: z.coerce.number().int().min(1).nullable().optional(),
      }),
    )
    .output(z.object({ data: audit, status: z.literal(200) }))
    .mutation(async ({ ctx, input }) => {
      const changed = await configureAudit(ctx.em, ctx.config, ctx.user.id, parseId(input.id), {
        budget: input.budget === undefined ? undefined : input.budget === null ? null : toStoredGroups(input.budget),
        runs: input.runs,
        baselineRun: input.baseline_run,
      });
      return { data: await described(ctx.em, changed), status: 200 as const };
    }),

  /** The audit's runs, newest first, each with what changed since the one before. */
  runs: apiKeyProcedure
    .meta({
      openapi: { method: 'GET', path: '/api/v1/audits/{id}/runs', summary: "List an audit's runs", tags: ['audits'] },
    })
    .input(z.object({ id: auditId, per_page: perPage, page: pageNumber }))
    .output(paginated(run))
    .query(async ({ ctx, input }) => {
      const found = await getAudit(ctx.em, ctx.user.id, parseId(input.id));
      const { rows, total } = await listRuns(ctx.em, found.id, input.per_page, (input.page - 1) * input.per_page);
      const built = buildPage(rows.map(describeRun), {
        page: input.page,
        perPage: input.per_page,
        total,
        path: listPath(ctx.config.PUBLIC_URL, `/api/v1/audits/${found.id}/runs`),
        query: { per_page: input.per_page },
      });
      return { ...built, status: 200 as const };
    }),

  /** Cancels the run under way (and the schedule), or deletes an audit with nothing under way. */
  delete: apiKeyProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/api/v1/audits/{id}',
        summary: 'Cancel or delete an audit',
        tags: ['audits'],
      },
      errorCodes: ['ERR_UNAVAILABLE'],
    })
    .input(z.object({ id: auditId }))
    .output(
      z.object({
        id: z.number().int(),
        object: z.literal('audit'),
        deleted: z.boolean(),
        cancelled: z.boolean(),
        status: z.literal(200),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const id = parseId(input.id);
      const done = await cancelOrDelete(ctx.em, queueOf(ctx), ctx.user.id, id);
      return {
        id,
        object: 'audit' as const,
        deleted: done === 'deleted',
        cancelled: done === 'cancelled',
        status: 200 as const,
      };
    }),
});
