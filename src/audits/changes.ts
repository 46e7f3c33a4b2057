/**
 * A finished run's summary (grades, mean score, the checks failing on the most pages, the
 * accessibility score and rules failing on the most pages) and what changed since the run
 * before it (pages added or gone, grades that moved, checks and accessibility rules newly
 * failing or fixed), computed from the runs' page rows. Accessibility rules (`a11y_*`, rendered
 * pages only) are kept apart from phpRank's checks: they are not part of the report's score.
 */
import { accessibilityRule } from '../analyzer/checks/accessibility-rules.ts';
import type { PageAssertions, RunChanges, RunSummary } from '../entities/audit.entity.ts';

/** One page of a run as the summary and the diff read it. */
export interface RunPage {
  url: string;
  status: string;
  result: string | null;
  score: number | null;
  failing: string[] | null;
  /** The page's accessibility score; null when it was not rendered. */
  accessibility_score?: number | null;
  /** The page's budget outcome; null without a budget. */
  assertions?: PageAssertions | null;
}

const isRule = (id: string): boolean => accessibilityRule(id) !== undefined;

function top(counts: Map<string, number>): Array<[string, number]> {
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 10);
}

export function summarize(pages: RunPage[]): RunSummary {
  const grades = { good: 0, decent: 0, bad: 0 };
  const counts = new Map<string, number>();
  const ruleCounts = new Map<string, number>();
  let sum = 0;
  let analysed = 0;
  let a11ySum = 0;
  let a11yPages = 0;
  for (const page of pages) {
    if (page.status !== 'done') continue;
    analysed++;
    sum += page.score ?? 0;
    if (page.result === 'good' || page.result === 'decent' || page.result === 'bad') grades[page.result]++;
    for (const check of page.failing ?? []) {
      const into = isRule(check) ? ruleCounts : counts;
      into.set(check, (into.get(check) ?? 0) + 1);
    }
    if (typeof page.accessibility_score === 'number') {
      a11ySum += page.accessibility_score;
      a11yPages++;
    }
  }
  return {
    pages: pages.length,
    failed_pages: pages.filter((p) => p.status === 'failed').length,
    score: analysed ? Math.round(sum / analysed) : null,
    grades,
    top_failing_checks: top(counts).map(([check, n]) => ({ check, pages: n })),
    accessibility: {
      status: a11yPages > 0 || ruleCounts.size > 0 ? 'measured' : 'needs_rendering',
      pages: a11yPages,
      score: a11yPages ? Math.round(a11ySum / a11yPages) : null,
      top_failing_rules: top(ruleCounts).map(([rule, n]) => ({ rule, pages: n })),
    },
  };
}

export function diffRuns(previousRun: number | null, before: RunPage[], after: RunPage[]): RunChanges {
  const changes: RunChanges = {
    previous_run: previousRun,
    pages_added: [],
    pages_gone: [],
    grades_moved: [],
    newly_failing: [],
    fixed: [],
    accessibility: { newly_failing: [], fixed: [] },
  };
  if (previousRun === null) return changes;
  const old = new Map(before.filter((p) => p.status === 'done').map((p) => [p.url, p]));
  const now = new Map(after.filter((p) => p.status === 'done').map((p) => [p.url, p]));
  for (const [url, page] of now) {
    const was = old.get(url);
    if (!was) {
      changes.pages_added.push(url);
      continue;
    }
    if (was.result && page.result && was.result !== page.result) {
      changes.grades_moved.push({ url, from: was.result, to: page.result });
    }
    const wasFailing = new Set(was.failing ?? []);
    const nowFailing = new Set(page.failing ?? []);
    const newly = [...nowFailing].filter((c) => !wasFailing.has(c)).sort();
    const fixed = [...wasFailing].filter((c) => !nowFailing.has(c)).sort();
    const checks = (ids: string[]) => ids.filter((c) => !isRule(c));
    const rules = (ids: string[]) => ids.filter(isRule);
    if (checks(newly).length) changes.newly_failing.push({ url, checks: checks(newly) });
    if (checks(fixed).length) changes.fixed.push({ url, checks: checks(fixed) });
    if (rules(newly).length) changes.accessibility.newly_failing.push({ url, rules: rules(newly) });
    if (rules(fixed).length) changes.accessibility.fixed.push({ url, rules: rules(fixed) });
  }
  for (const url of old.keys()) if (!now.has(url)) changes.pages_gone.push(url);
  changes.pages_added.sort();
  changes.pages_gone.sort();
  return changes;
}
