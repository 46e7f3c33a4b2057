/**
 * A finished run's summary (grades, mean score, the checks failing on the most pages) and what
 * changed since the run before it (pages added or gone, grades that moved, checks newly
 * failing or fixed), computed from the runs' page rows.
 */

/** One page of a run as the summary and the diff read it. */
export interface RunPage {
  url: string;
  status: string;
  result: string | null;
  score: number | null;
  failing: string[] | null;
}

export interface RunSummary {
  pages: number;
  failed_pages: number;
  score: number | null;
  grades: { good: number; decent: number; bad: number };
  /** The checks failing on the most pages, most first (at most 10). */
  top_failing_checks: Array<{ check: string; pages: number }>;
}

export interface RunChanges {
  /** The run compared with; null for an audit's first run (everything else is then empty). */
  previous_run: number | null;
  pages_added: string[];
  pages_gone: string[];
  grades_moved: Array<{ url: string; from: string; to: string }>;
  newly_failing: Array<{ url: string; checks: string[] }>;
  fixed: Array<{ url: string; checks: string[] }>;
}

export function summarize(pages: RunPage[]): RunSummary {
  const grades = { good: 0, decent: 0, bad: 0 };
  const counts = new Map<string, number>();
  let sum = 0;
  let analysed = 0;
  for (const page of pages) {
    if (page.status !== 'done') continue;
    analysed++;
    sum += page.score ?? 0;
    if (page.result === 'good' || page.result === 'decent' || page.result === 'bad') grades[page.result]++;
    for (const check of page.failing ?? []) counts.set(check, (counts.get(check) ?? 0) + 1);
  }
  const top = [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 10)
    .map(([check, n]) => ({ check, pages: n }));
  return {
    pages: pages.length,
    failed_pages: pages.filter((p) => p.status === 'failed').length,
    score: analysed ? Math.round(sum / analysed) : null,
    grades,
    top_failing_checks: top,
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
    if (newly.length) changes.newly_failing.push({ url, checks: newly });
    if (fixed.length) changes.fixed.push({ url, checks: fixed });
  }
  for (const url of old.keys()) if (!now.has(url)) changes.pages_gone.push(url);
  changes.pages_added.sort();
  changes.pages_gone.sort();
  return changes;
}
