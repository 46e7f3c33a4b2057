/**
 * The check implementations, in report order, and running them over a page. Only the check
 * workers (check-worker.ts) load this module: the implementations bring the HTML helpers,
 * robots-parser and tldts's public suffix list (about 11 MB resident), which the service's
 * main thread never needs (it scores results with scoring.ts and names checks with
 * checks/definitions.ts).
 */
import { miscellaneousChecks } from './checks/miscellaneous.ts';
import { performanceChecks } from './checks/performance.ts';
import { securityChecks } from './checks/security.ts';
import { seoChecks } from './checks/seo.ts';
import { runCheck, type CheckDefinition, type ResultsByCategory } from './checks/types.ts';
import type { PageContext } from './page.ts';

/** Every check, in report order. */
export const allChecks: readonly CheckDefinition[] = [
  ...seoChecks,
  ...performanceChecks,
  ...securityChecks,
  ...miscellaneousChecks,
];

const byId = new Map(allChecks.map((c) => [c.id, c]));

/** The check with this id; throws for an unknown id. */
export function checkById(id: string): CheckDefinition {
  const check = byId.get(id);
  if (!check) throw new Error(`Unknown check: ${id}`);
  return check;
}

/** Run `checks` (default: all) over `page`, grouped by category. */
export function runChecks(page: PageContext, checks: readonly CheckDefinition[] = allChecks): ResultsByCategory {
  const results: ResultsByCategory = { seo: [], performance: [], security: [], miscellaneous: [] };
  for (const check of checks) (results[check.category] ??= []).push(runCheck(check, page));
  return results;
}
