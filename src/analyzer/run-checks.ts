/**
 * Running the page checks over a page. Only the check workers (check-worker.ts) and the
 * in-thread fallback call this; the checks (checks/page/, found by checks/registry.ts) reach
 * the HTML helpers, robots-parser and tldts's public suffix list (about 11 MB resident)
 * through the page (page.ts), which the service's main thread never loads (it scores results
 * with scoring.ts and names checks with checks/definitions.ts).
 */
import { pageChecks } from './checks/registry.ts';
import { runCheck, type PageCheck, type ResultsByCategory } from './checks/types.ts';
import type { PageContext } from './page.ts';

/** Every page check, in report order. */
export const allChecks: readonly PageCheck[] = pageChecks;

/** Run `checks` (default: all) over `page`, grouped by category. */
export function runChecks(page: PageContext, checks: readonly PageCheck[] = allChecks): ResultsByCategory {
  const results: ResultsByCategory = { seo: [], performance: [], security: [], miscellaneous: [] };
  for (const check of checks) (results[check.category] ??= []).push(runCheck(check, page));
  return results;
}
