import type { InferEntity } from '@mikro-orm/core';
import { defineEntity, p } from '@mikro-orm/core';
import type { AggregationMethod, StoredBudgetGroup } from '../budgets/budget.ts';
import type { PresetName } from '../budgets/presets.ts';
import { AuditSchema } from './audit.entity.ts';

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
    assertions: p.json<StoredBudgetGroup['assertions']>(),
  },
});

export type AuditBudget = InferEntity<typeof AuditBudgetSchema>;
