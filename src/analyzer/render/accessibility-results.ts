/**
 * The accessibility checks of a rendered page from axe's findings (axe.ts): one check per rule
 * of checks/accessibility-rules.ts, in its order, with the outcome Lighthouse 12's axe audits give:
 *
 *   - `failed`: axe found violations; the check fails, its details are the first nodes
 *     (selector, snippet, why) and its value the worst impact and how many nodes;
 *   - `not_applicable`: axe found nothing on the page the rule tests; passes, not scored;
 *   - `needs_review`: no violation, but nodes axe could not decide alone (its "incomplete":
 *     text over a background image for contrast, a label it cannot see...); passes and counts
 *     as passing in the score, as in Lighthouse; its details are the nodes to look at;
 *   - `passed`: otherwise.
 *
 * A run that failed (axe.ts) yields no checks: the report then has no accessibility section
 * and says so (reports/accessibility-category.ts).
 */
import {
  accessibilityRules,
  type AccessibilityOutcome,
  type AccessibilityValue,
  type AxeImpact,
} from '../checks/accessibility-rules.ts';
import type { AxeFinding, AxeRun } from './axe.ts';
import type { RenderedCheckResult } from './lab.ts';

const impactRank: Record<AxeImpact, number> = { minor: 1, moderate: 2, serious: 3, critical: 4 };

function worst(a: AxeImpact | null, b: AxeImpact | null): AxeImpact | null {
  if (a === null) return b;
  if (b === null) return a;
  return impactRank[b] > impactRank[a] ? b : a;
}

/** The findings of one rule, merged (axe lists a rule once, but a page cannot be trusted to). */
function byRule(list: AxeFinding[]): Map<string, AxeFinding> {
  const map = new Map<string, AxeFinding>();
  for (const f of list) {
    const had = map.get(f.rule);
    map.set(
      f.rule,
      had ? { rule: f.rule, impact: worst(had.impact, f.impact), count: had.count + f.count, nodes: had.nodes } : f,
    );
  }
  return map;
}

/** The accessibility checks of an axe run; none when the run failed. */
export function accessibilityChecks(run: AxeRun): RenderedCheckResult[] {
  if (run.error) return [];
  const violations = byRule(run.violations);
  const incomplete = byRule(run.incomplete);
  const inapplicable = new Set(run.inapplicable);
  return accessibilityRules.map((rule) => {
    const violation = violations.get(rule.axe);
    const review = incomplete.get(rule.axe);
    let outcome: AccessibilityOutcome;
    let finding: AxeFinding | undefined;
    if (violation) {
      outcome = 'failed';
      finding = violation;
    } else if (inapplicable.has(rule.axe)) {
      outcome = 'not_applicable';
    } else if (review) {
      outcome = 'needs_review';
      finding = review;
    } else {
      outcome = 'passed';
    }
    const value: AccessibilityValue = {
      outcome,
      impact: finding?.impact ?? null,
      nodes: finding?.count ?? 0,
      weight: rule.weight,
    };
    return {
      id: rule.id,
      category: rule.category,
      importance: rule.importance,
      passed: outcome !== 'failed',
      value,
      details: finding ? [...finding.nodes] : [],
      rendered: true as const,
    };
  });
}
