/**
 * Every check the service can report, described: identity (id, report section, importance,
 * which picks its weight in scoring.ts, and where its verdict comes from), words and value
 * format, in report order. Each fact has one place: a page check's module (checks/page/,
 * listed in registry.ts), gsb.ts, lab.ts, and for the accessibility checks accessibility-rules.ts
 * (identity) with catalogue/en-accessibility.ts (words). The catalogue (catalogue/) reads
 * this list.
 */
import { accessibilityRules } from './accessibility-rules.ts';
import { enAccessibility } from './catalogue/en-accessibility.ts';
import * as formats from './catalogue/formats.ts';
import { gsbCheck } from './gsb.ts';
import { labDefinitions } from './lab.ts';
import { pageChecks } from './registry.ts';
import type { CheckIdentity, DescribedCheck } from './types.ts';

/** An accessibility check's value: {outcome, impact, nodes, weight}; the nodes themselves are the details. */
const accessibilityValue = formats.table({
  outcome: { type: 'text' },
  impact: { type: 'text' },
  nodes: formats.n('count'),
  weight: formats.n('unitless'),
});

/**
 * Every check the service can report, in report order: the page checks and `gsb` by their
 * `order` (phpRank's ids first within a section), then the lab checks of a rendered page
 * (http_requests and mixed_content are measured again there and replace the page verdicts),
 * then Lighthouse's accessibility rules, by axe-core in the rendered page (scored in their own
 * category, not in the report's score).
 */
export const checkDefinitions: readonly DescribedCheck[] = [
  ...[...pageChecks, gsbCheck].sort((a, b) => a.order - b.order),
  ...labDefinitions,
  ...accessibilityRules.map(({ id, category, importance, source }) => ({
    id,
    category,
    importance,
    source,
    texts: { en: enAccessibility[id] },
    value: accessibilityValue,
  })),
];

const byId = new Map<string, DescribedCheck>(checkDefinitions.map((d) => [d.id, d]));

/** The check `id`, described; undefined when the service reports no such check. */
export function describedCheck(id: string): DescribedCheck | undefined {
  return byId.get(id);
}

/** The identity of check `id`; undefined when the service reports no such check. */
export function checkIdentity(id: string): CheckIdentity | undefined {
  const check = byId.get(id);
  return check && { id: check.id, category: check.category, importance: check.importance, source: check.source };
}

/** Position of each id in report order. */
export const checkOrder: ReadonlyMap<string, number> = new Map(checkDefinitions.map((d, i) => [d.id, i]));
