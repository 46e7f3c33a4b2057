/**
 * A Markdown summary a CI can post on a pull request: the verdict, then failures first (each
 * with its fix from the service's check catalogue), warnings, regressions, and the passed
 * assertions folded away.
 */
import { failsBuild, exitCodeOf, type AssertionLine, type UrlOutcome } from './outcome.ts';

/** The catalogue's words for a check (`GET /api/v1/checks`). */
export type Fixes = ReadonlyMap<string, { title: string; fix: string }>;

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function value(a: AssertionLine): string {
  if (a.status === 'not_measured') return `not measured: ${a.message ?? ''}`;
  return `${a.actual} (${a.aggregationMethod}${a.values.length > 1 ? ` of ${a.values.join(', ')}` : ''})`;
}

function row(a: AssertionLine, fixes: Fixes): string {
  const words = a.check ? fixes.get(a.check) : undefined;
  const what = words ? `${a.key} (${words.title})` : a.key;
  const fix = words?.fix ?? (a.check ? '' : 'Not measured by this service: remove it or set it to "off".');
  return `| ${cell(a.url)} | ${cell(what)} | ${a.level} | ${a.name} ${a.operator} ${a.expected} | ${cell(value(a))} | ${cell(fix)} |`;
}

export function toMarkdown(outcomes: readonly UrlOutcome[], fixes: Fixes): string {
  const all = outcomes.flatMap((o) => o.assertions);
  const errors = all.filter(failsBuild);
  const warnings = all.filter((a) => a.level === 'warn' && a.status !== 'passed');
  const passed = all.filter((a) => a.status === 'passed');
  const regressions = outcomes.flatMap((o) =>
    (o.regression?.metrics ?? [])
      .filter((m) => m.regressed)
      .map((m) => ({ url: o.url, baseline: o.regression!.baseline, ...m })),
  );
  const verdict = exitCodeOf(outcomes) === 0 ? '✅ Budget met' : '❌ Budget not met';
  const out = [
    `## ${verdict}`,
    '',
    `${outcomes.length} URL(s): ${errors.length} failing, ${warnings.length} warning(s), ${passed.length} passed, ${regressions.length} significant regression(s).`,
    '',
  ];
  const header = ['| URL | Assertion | Level | Expected | Actual | Fix |', '|---|---|---|---|---|---|'];
  if (errors.length) out.push('### Failures', '', ...header, ...errors.map((a) => row(a, fixes)), '');
  if (regressions.length) {
    out.push('### Regressions', '', '| URL | Metric | Baseline median | Median | p-value |', '|---|---|---|---|---|');
    for (const r of regressions)
      out.push(`| ${cell(r.url)} | ${r.metric} | ${r.baseline_median} | ${r.median} | ${r.p_value} |`);
    out.push('');
  }
  if (warnings.length) out.push('### Warnings', '', ...header, ...warnings.map((a) => row(a, fixes)), '');
  if (passed.length) {
    out.push(
      '<details><summary>Passed</summary>',
      '',
      ...header,
      ...passed.map((a) => row(a, fixes)),
      '',
      '</details>',
      '',
    );
  }
  const uncovered = [...new Set(outcomes.flatMap((o) => o.uncovered))];
  if (uncovered.length)
    out.push(`Preset audits this service does not measure (not asserted): ${uncovered.join(', ')}.`, '');
  return out.join('\n');
}
