/**
 * Budgets as data, in Lighthouse CI's language: the `assert` section of a lighthouserc
 * (`{ci: {assert: ...}}`, or the section alone), with `preset`, `assertions`,
 * `aggregationMethod` and `assertMatrix` (`matchingUrlPattern`, a regular expression on the
 * URL), or our own form, `{budgets: [{path, preset, assertions, aggregationMethod}]}`, whose
 * `path` is a path pattern as audits' `include` (`/blog/*`). Validated with zod; every form
 * comes out as a list of groups of normalized assertions.
 */
import { z } from 'zod';
import { checkPathPattern, checkSafePattern, compilePathPattern, compileSafePattern } from '../gateway/patterns.ts';
import { assertionTarget, type AssertionTarget } from './lighthouse-map.ts';
import { presetAssertions, presetNames, presetUncovered } from './presets.ts';
import type { AggregationMethod, AssertionLevel, AssertionValue, PresetName } from '../entities/audit-budget.entity.ts';

export const levels = ['off', 'warn', 'error'] as const;
export const aggregationMethods = ['median', 'optimistic', 'pessimistic', 'median-run'] as const;
export type Level = AssertionLevel;
export type { AggregationMethod };

const options = z
  .object({
    minScore: z.number().min(0).max(1).optional(),
    maxNumericValue: z.number().min(0).optional(),
    maxLength: z.number().int().min(0).optional(),
    aggregationMethod: z.enum(aggregationMethods).optional(),
  })
  .strict();
const assertion = z.union([z.enum(levels), z.tuple([z.enum(levels), options]), z.tuple([z.enum(levels)])]);
const assertionMap = z
  .record(z.string().min(1).max(120), assertion)
  .refine((m) => Object.keys(m).length <= 500, { error: 'At most 500 assertions.' });

const preset = z.enum(presetNames).optional();
const urlPattern = z
  .string()
  .min(1)
  .max(200)
  .superRefine((v, ctx) => {
    const why = checkSafePattern(v);
    if (why) ctx.addIssue({ code: 'custom', message: `matchingUrlPattern ${why}` });
  });
const pathPattern = z
  .string()
  .min(1)
  .max(200)
  .superRefine((v, ctx) => {
    const why = checkPathPattern(v);
    if (why) ctx.addIssue({ code: 'custom', message: `path ${why}` });
  });

/** The `assert` section of a lighthouserc. */
export const assertSection = z
  .object({
    preset,
    assertions: assertionMap.optional(),
    aggregationMethod: z.enum(aggregationMethods).optional(),
    assertMatrix: z
      .array(
        z
          .object({
            matchingUrlPattern: urlPattern.optional(),
            preset,
            assertions: assertionMap.optional(),
            aggregationMethod: z.enum(aggregationMethods).optional(),
          })
          .strict(),
      )
      .max(20)
      .optional(),
    includePassedAssertions: z.boolean().optional(),
  })
  .strict();

/** One group of our own form: the pages it applies to (all when no `path`) and its assertions. */
export const budgetGroup = z
  .object({
    path: pathPattern.optional(),
    preset,
    assertions: assertionMap.optional(),
    aggregationMethod: z.enum(aggregationMethods).optional(),
  })
  .strict();

/** Every accepted form: a whole lighthouserc, its `assert` section, or ours. */
export const budgetInput = z.union([
  z.object({ ci: z.object({ assert: assertSection }).loose() }).loose(),
  z.object({ budgets: z.array(budgetGroup).min(1).max(20) }).strict(),
  assertSection,
]);
export type BudgetInput = z.infer<typeof budgetInput>;

/** A group as stored with an audit (table `audit_budgets`), in LHCI's words. */
export interface StoredBudgetGroup {
  path: string | null;
  url_pattern: string | null;
  preset: PresetName | null;
  aggregation_method: AggregationMethod | null;
  assertions: Record<string, AssertionValue>;
}

/** One assertion ready to evaluate. */
export interface Assertion {
  /** The key as written (`largest-contentful-paint`, `categories:performance`, `a11y_label`). */
  key: string;
  /** What it measures; undefined when we do not measure it (it is then reported `not_measured`). */
  target: AssertionTarget | undefined;
  level: Level;
  minScore?: number;
  maxNumericValue?: number;
  maxLength?: number;
  aggregationMethod: AggregationMethod;
}

/** Groups of a budget: which URLs each applies to and its assertions. */
export interface BudgetGroup {
  matches(url: URL): boolean;
  assertions: Assertion[];
  /** Preset audits we do not measure (left out of the assertions). */
  uncovered: string[];
}

/** Any accepted form as the groups we store. */
export function toStoredGroups(input: BudgetInput): StoredBudgetGroup[] {
  const section = 'ci' in input ? input.ci.assert : input;
  if ('budgets' in section) {
    return section.budgets.map((g) => ({
      path: g.path ?? null,
      url_pattern: null,
      preset: g.preset ?? null,
      aggregation_method: g.aggregationMethod ?? null,
      assertions: g.assertions ?? {},
    }));
  }
  const a = section;
  if (a.assertMatrix?.length) {
    return a.assertMatrix.map((m) => ({
      path: null,
      url_pattern: m.matchingUrlPattern ?? null,
      preset: m.preset ?? null,
      aggregation_method: m.aggregationMethod ?? a.aggregationMethod ?? null,
      assertions: m.assertions ?? {},
    }));
  }
  return [
    {
      path: null,
      url_pattern: null,
      preset: a.preset ?? null,
      aggregation_method: a.aggregationMethod ?? null,
      assertions: a.assertions ?? {},
    },
  ];
}

/** LHCI kebab-cases keys (`firstContentfulPaint`); ours have underscores and stay as written. */
const kebab = (key: string) => key.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();

/** A stored group, ready to evaluate: the preset under the explicit assertions (LHCI's merge). */
export function compileGroup(group: StoredBudgetGroup): BudgetGroup {
  const merged = { ...(group.preset ? presetAssertions(group.preset) : {}), ...group.assertions };
  const assertions: Assertion[] = [];
  for (const [written, value] of Object.entries(merged)) {
    const key = /[A-Z]/.test(written) ? kebab(written) : written;
    const [level, opts = {}]: [Level, z.infer<typeof options>?] = typeof value === 'string' ? [value, {}] : value;
    if (level === 'off') continue;
    assertions.push({
      key,
      target: assertionTarget(key),
      level,
      ...opts,
      aggregationMethod: opts.aggregationMethod ?? group.aggregation_method ?? 'optimistic',
    });
  }
  const byPath = group.path ? compilePathPattern(group.path) : undefined;
  const byUrl = group.url_pattern ? compileSafePattern(group.url_pattern) : undefined;
  return {
    matches: (url) => (byPath ? byPath(url.pathname) : true) && (byUrl ? byUrl(url.href) : true),
    assertions,
    uncovered: group.preset ? presetUncovered(group.preset) : [],
  };
}

/**
 * Parses any accepted form; throws zod's error (the router turns it into a 422). The routers
 * parse through their input schema; the unit tests call this, tagged for knip's production mode.
 * @internal
 */
export function parseBudget(value: unknown): StoredBudgetGroup[] {
  return toStoredGroups(budgetInput.parse(value));
}
