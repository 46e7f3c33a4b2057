import { defineEntity, p } from '@mikro-orm/core';
import { AuditSchema } from './audit.entity.ts';

/** Lighthouse CI's assertion levels, aggregation methods and the presets we take. */
export type AssertionLevel = 'off' | 'warn' | 'error';
export type AggregationMethod = 'median' | 'optimistic' | 'pessimistic' | 'median-run';
export type PresetName = 'lighthouse:recommended' | 'lighthouse:no-pwa';
/** One assertion as LHCI writes it: a level, or a level and its options. */
export type AssertionValue =
  | AssertionLevel
  | [AssertionLevel]
  | [
      AssertionLevel,
      { minScore?: number; maxNumericValue?: number; maxLength?: number; aggregationMethod?: AggregationMethod },
    ];

/**
 * One group of an audit's budget (src/budgets/budget.ts): the pages it applies to (a path
 * pattern, or LHCI's `matchingUrlPattern`; all pages when neither) and its assertions in
 * Lighthouse CI's words, in the order they were given.
 */
export const AuditBudgetSchema = defineEntity({
  name: 'AuditBudget',
  tableName: 'audit_budgets',
  properties: {
    id: p.integer().primary().autoincrement(),
    audit: p.manyToOne(AuditSchema).deleteRule('cascade'),
    position: p.smallint(),
    path: p.string().length(200).nullable(),
    urlPattern: p.string().length(200).nullable(),
    preset: p.string().length(32).$type<PresetName>().nullable(),
    aggregationMethod: p.string().length(16).$type<AggregationMethod>().nullable(),
    assertions: p.json<Record<string, AssertionValue>>(),
  },
});
