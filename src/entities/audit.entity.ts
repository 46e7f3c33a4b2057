import type { InferEntity } from '@mikro-orm/core';
import { defineEntity, p } from '@mikro-orm/core';
import { UserSchema } from './user.entity.ts';
import { ReportSchema } from './report.entity.ts';
import type { LabMetric } from './report.entity.ts';

/* The JSON columns of a run: its summary and what changed since the run before it (src/audits/changes.ts computes both). */

/** A run's accessibility category over its rendered pages. */
export interface RunAccessibility {
  /** `needs_rendering` when no page of the run was rendered (the audit's `render`). */
  status: 'measured' | 'needs_rendering';
  /** Pages with an accessibility score. */
  pages: number;
  /** Their mean accessibility score; null when none. */
  score: number | null;
  /** The rules failing on the most pages, most first (at most 10). */
  top_failing_rules: Array<{ rule: string; pages: number }>;
}

/** A run's budget outcome over its pages: how many pages fail an error (or only a warning) assertion, and the assertions failing on the most pages. */
export interface RunBudget {
  pages: number;
  error_pages: number;
  warning_pages: number;
  top_failing: Array<{ key: string; level: 'warn' | 'error'; pages: number }>;
}

/** A run's regressions against its baseline run (src/audits/regressions.ts). */
export interface RunRegressions {
  baseline_run: number;
  /** Pages tested (measured in both runs with enough runs). */
  pages: number;
  /** The metrics that regressed, each with its pages. */
  metrics: Array<{
    metric: LabMetric;
    pages: Array<{ url: string; baseline_median: number; median: number; change: number; p_value: number }>;
  }>;
}

export interface RunSummary {
  pages: number;
  failed_pages: number;
  score: number | null;
  grades: { good: number; decent: number; bad: number };
  /** The checks failing on the most pages, most first (at most 10). */
  top_failing_checks: Array<{ check: string; pages: number }>;
  accessibility: RunAccessibility;
  /** The budget's outcome over the run's pages (an audit with a budget). */
  budget?: RunBudget;
  /** Regressions against the baseline run (pages measured in both). */
  regressions?: RunRegressions;
  /** Set by the run's end when the audited host is behind a gateway site of the same account. */
  gateway?: {
    passed: boolean;
    checks: Array<{ persona: string; outcome: 'pass' | 'challenge' | 'refuse' | 'deny'; rule: string; ok: boolean }>;
  };
}

export interface RunChanges {
  /** The run compared with; null for an audit's first run (everything else is then empty). */
  previous_run: number | null;
  pages_added: string[];
  pages_gone: string[];
  grades_moved: Array<{ url: string; from: string; to: string }>;
  newly_failing: Array<{ url: string; checks: string[] }>;
  fixed: Array<{ url: string; checks: string[] }>;
  /** The same for accessibility rules, per page. */
  accessibility: {
    newly_failing: Array<{ url: string; rules: string[] }>;
    fixed: Array<{ url: string; rules: string[] }>;
  };
}

/** A page's budget outcome, as stored. */
export interface PageAssertions {
  passed: number;
  failed: number;
  not_measured: number;
  /** The assertions that did not pass (at most 50). */
  failing: Array<{
    key: string;
    level: 'warn' | 'error';
    status: 'failed' | 'not_measured';
    actual: number | null;
    expected: number;
    name: string;
  }>;
}

export type AuditStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
export type AuditPageStatus = 'queued' | 'done' | 'failed';

/**
 * A whole-site audit: where the crawl starts and what it may cover; optionally a schedule
 * (cron in a time zone). Its runs are {@link AuditRunSchema} rows; `status` is its latest run's.
 */
export const AuditSchema = defineEntity({
  name: 'Audit',
  tableName: 'audits',
  indexes: [{ properties: ['user', 'id'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    user: p.manyToOne(UserSchema).deleteRule('cascade'),
    url: p.string().length(2048),
    /** The start URL's project (host without www.): the audit's reports are counted there. */
    project: p.string().length(253),
    maxPages: p.integer(),
    render: p.boolean().nullable(),
    include: p.json<string[]>(),
    exclude: p.json<string[]>(),
    schedule: p.string().length(128).nullable(),
    /** Times each page is measured per run (its lab figures kept per run). */
    runs: p.smallint().default(1),
    /** The run regressions are tested against; null: the previous completed run. */
    baselineRunId: p.integer().nullable(),
    timezone: p.string().length(64).nullable(),
    status: p.string().length(16).$type<AuditStatus>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export type Audit = InferEntity<typeof AuditSchema>;

/** One crawl of an audit: progress counters, and at its end a summary and what changed since the run before. */
export const AuditRunSchema = defineEntity({
  name: 'AuditRun',
  tableName: 'audit_runs',
  indexes: [{ properties: ['audit', 'id'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    audit: p.manyToOne(AuditSchema).deleteRule('cascade'),
    status: p.string().length(16).$type<AuditStatus>(),
    total: p.integer().default(0),
    done: p.integer().default(0),
    failed: p.integer().default(0),
    summary: p.json<RunSummary>().nullable(),
    changes: p.json<RunChanges>().nullable(),
    error: p.string().length(512).nullable(),
    startedAt: p.datetime().nullable(),
    finishedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type AuditRun = InferEntity<typeof AuditRunSchema>;

/** One page of a run: found once (unique per run), analysed once into a report, or failed. */
export const AuditPageSchema = defineEntity({
  name: 'AuditPage',
  tableName: 'audit_pages',
  uniques: [{ properties: ['run', 'url'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    run: p.manyToOne(AuditRunSchema).deleteRule('cascade'),
    url: p.string().length(2048),
    status: p.string().length(16).$type<AuditPageStatus>(),
    report: p.manyToOne(ReportSchema).nullable().deleteRule('set null'),
    score: p.smallint().nullable(),
    result: p.string().length(8).$type<'good' | 'decent' | 'bad'>().nullable(),
    /** Ids of the checks that failed on this page. */
    failing: p.json<string[]>().nullable(),
    /** The accessibility category's own score of a rendered page; null when not rendered. */
    accessibilityScore: p.smallint().nullable(),
    /** The page's budget outcome: counts and the assertions that did not pass; null without a budget. */
    assertions: p.json<PageAssertions>().nullable(),
    error: p.string().length(512).nullable(),
    /** How many times a worker took it up (more than one after an instance stopped mid-page). */
    attempts: p.smallint().default(0),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
