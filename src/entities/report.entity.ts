import { randomBytes } from 'node:crypto';
import type { InferEntity } from '@mikro-orm/core';
import { defineEntity, p } from '@mikro-orm/core';
import { UserSchema } from './user.entity.ts';

export type ReportResult = 'good' | 'decent' | 'bad';
export type Privacy = 0 | 1 | 2;

/**
 * An audit of one URL. Every index below serves a documented list filter or sort, always
 * scoped to the owner and ending in id so sorting is stable; the trigram index on the
 * lowered URL serves the case-insensitive URL substring search.
 */
/** The column default of `share_id` (Migration20261122220100): for rows inserted by SQL. */
// Written as PostgreSQL prints it back, so schema diffs see no change.
const SHARE_ID_DEFAULT =
  "rtrim(translate(encode(decode(replace((gen_random_uuid())::text, '-'::text, ''::text), 'hex'::text), 'base64'::text), '+/'::text, '-_'::text), '='::text)";

export const ReportSchema = defineEntity({
  name: 'Report',
  tableName: 'reports',
  indexes: [
    // The default sort, covering the lowered URL: a search sorted by id walks it newest first
    // and filters each entry in the index (an index-only scan), with no heap row per candidate
    // (bench/reports-list).
    {
      name: 'reports_user_id_id_url_lower_index',
      expression:
        'create index "reports_user_id_id_url_lower_index" on "reports" ("user_id", "id") include ("url_lower")',
    },
    { properties: ['user', 'generatedAt', 'id'] },
    { properties: ['user', 'url', 'id'] },
    { properties: ['user', 'score', 'id'] },
    { properties: ['user', 'project', 'id'] },
    // The result filter, covering the lowered URL for the same reason: a search among the
    // user's good reports walks it newest first without a heap row per candidate.
    {
      name: 'reports_user_id_result_id_url_lower_index',
      expression:
        'create index "reports_user_id_result_id_url_lower_index" on "reports" ("user_id", "result", "id") include ("url_lower")',
    },
    {
      name: 'reports_url_lower_trgm',
      expression: 'create index "reports_url_lower_trgm" on "reports" using gin ("url_lower" gin_trgm_ops)',
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement(),
    user: p.manyToOne(UserSchema).deleteRule('cascade'),
    /** phpRank's short form of the address (src/reports/urls.ts `storedUrl`), as the API shows it. */
    url: p.string().length(2048),
    /** The full address the report was analysed at (its final URL), for re-analysis and the share page. */
    fullUrl: p.text(),
    /**
     * `lower(url)`, kept by PostgreSQL, for the URL search: `url_lower LIKE lower(pattern)` is
     * what `url ILIKE pattern` computes in a UTF-8 database, without lowering every row it
     * reads. Never loaded (lazy) nor written by the ORM.
     */
    urlLower: p.text().nullable().generated('(lower((url)::text)) stored').lazy(true, false),
    project: p.string().length(253),
    result: p.string().length(8).$type<ReportResult>(),
    score: p.smallint(),
    /**
     * Per-check results keyed by check id, as phpRank stores them (src/reports/results.ts).
     * `json`, not `jsonb`: lists send it as stored text (src/raw-json.ts) without jsonb's
     * conversion back to text; no query looks inside it (docs/decisions/0006-raw-json-results.md).
     */
    results: p.json<Record<string, unknown>>().columnType('json'),
    /** Category summaries (src/reports/categories.ts); null on reports stored before them. */
    categories: p.json<ReportCategories>().columnType('json').nullable(),
    /** Median and spread of the runs' lab figures (src/reports/lab-samples.ts); null when not rendered. */
    labStats: p.json<LabStatsColumn>().columnType('json').nullable(),
    privacy: p.smallint().$type<Privacy>().default(1),
    // Never serialised: describeReport exposes only `password: boolean`. (`hidden()` would brand
    // the type and lose its null.)
    passwordHash: p.string().length(255).nullable(),
    /**
     * The share page's address (`/reports/{shareId}`): 22 base64url characters of 16 random
     * bytes, so pages cannot be found by walking ids. The numeric id stays the API's.
     */
    shareId: p
      .string()
      .length(22)
      .unique()
      .defaultRaw(SHARE_ID_DEFAULT)
      .onCreate(() => randomBytes(16).toString('base64url')),
    generatedAt: p.datetime(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

/** A report's category summaries (src/reports/categories.ts computes them). */
export interface ReportCategories {
  performance: { status: 'measured'; score: number } | { status: 'needs_rendering' };
  accessibility:
    | {
        status: 'measured';
        score: number | null;
        passed: number;
        failed: number;
        needs_review: number;
        not_applicable: number;
      }
    | { status: 'needs_rendering' }
    | { status: 'not_measured' };
}

/** A lab figure that repeated runs keep per run (src/reports/lab-samples.ts). */
export type LabMetric = 'fcp' | 'lcp' | 'tbt' | 'cls' | 'score' | 'bytes';

/** Median and spread of one metric over a report's runs. */
export interface MetricStats {
  runs: number;
  median: number;
  min: number;
  max: number;
  /** Interquartile range (the spread of the middle half). */
  iqr: number;
}
export type LabStats = Partial<Record<LabMetric, MetricStats>>;

/** A report's lab statistics: how many runs were made and each metric's median and spread. */
export interface LabStatsColumn {
  runs: number;
  metrics: LabStats;
}

export type Report = InferEntity<typeof ReportSchema>;
