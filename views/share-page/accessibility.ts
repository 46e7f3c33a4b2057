/**
 * The accessibility section of a share page: the category's own score (not part of the
 * report's), the failing rules costliest first, each with its fix and the elements axe found
 * (selector, snippet, why), then the elements axe could not decide alone (needs review). A
 * report that was not rendered says the category needs rendering.
 */
import { catalogueEntry } from '../../src/analyzer/checks/catalogue/index.ts';
import { accessibilityRule } from '../../src/analyzer/checks/accessibility-rules.ts';
import { accessibilityEntries, accessibilityOf, entryOutcome } from '../../src/reports/accessibility-category.ts';
import type { ReportResults, ResultEntry } from '../../src/reports/results.ts';
import { escapeHtml } from './escape.ts';

type Entry = ResultEntry & { id: string };

/** The elements of a rule as a list: selector, snippet and axe's explanation. */
function nodesHtml(entry: Entry): string {
  const nodes = entry.details.filter(
    (d): d is { selector: string; snippet: string; why: string } => typeof d === 'object' && d !== null,
  );
  if (nodes.length === 0) return '';
  const total = (entry.value as { nodes?: unknown } | null)?.nodes;
  const more =
    typeof total === 'number' && total > nodes.length ? `<li class="muted">and ${total - nodes.length} more</li>` : '';
  return `<ul class="nodes">${nodes
    .map(
      (n) => `<li><span class="code">${escapeHtml(String(n.selector ?? ''))}</span>
<pre class="snippet">${escapeHtml(String(n.snippet ?? ''))}</pre>
<p class="why">${escapeHtml(String(n.why ?? ''))}</p></li>`,
    )
    .join('')}${more}</ul>`;
}

function ruleHtml(entry: Entry, points: number | null): string {
  const about = accessibilityRule(entry.id) ? catalogueEntry(entry.id) : undefined;
  const impact = (entry.value as { impact?: unknown } | null)?.impact;
  const cost =
    points === null
      ? ''
      : points > 0
        ? `<span class="cost">−${Math.round(points * 10) / 10} points</span>`
        : '<span class="cost unscored">not scored</span>';
  return `<li id="a11y-${escapeHtml(entry.id)}">
<div class="row"><h3>${escapeHtml(about?.title ?? entry.id)}</h3><span>${typeof impact === 'string' ? `<span class="muted">${escapeHtml(impact)}</span> ` : ''}${cost}</span></div>
${about && points !== null ? `<p class="fix"><strong>How to fix:</strong> ${escapeHtml(about.fix)}</p>` : ''}
${nodesHtml(entry)}
</li>`;
}

/** The section, or a note that the category needs a rendered page. */
export function accessibilityHtml(results: ReportResults | null): string {
  const summary = accessibilityOf(results);
  if (summary.status === 'needs_rendering') {
    return `<section id="section-accessibility"><h2>Accessibility</h2>
<p class="muted" data-status="needs_rendering">Needs rendering: accessibility is checked in a browser. Analyse the page again with rendering (<span class="code">render=1</span>) to see it.</p></section>`;
  }
  if (summary.status === 'not_measured') {
    return `<section id="section-accessibility"><h2>Accessibility</h2>
<p class="muted" data-status="not_measured">Not measured: the page was rendered, but the accessibility checks could not run in the time it had.</p></section>`;
  }
  const entries = accessibilityEntries(results);
  const byId = new Map(entries.map((e) => [e.id, e]));
  const applicable = entries.filter((e) => entryOutcome(e) !== 'not_applicable');
  const total = applicable.reduce((n, e) => n + (accessibilityRule(e.id)?.weight ?? 0), 0);
  const failing = summary.failing.map((id) => byId.get(id)!).filter(Boolean);
  const review = entries.filter((e) => entryOutcome(e) === 'needs_review');
  const score = summary.score === null ? 'not applicable' : `<strong>${summary.score}</strong> of 100`;
  return `<section id="section-accessibility"><h2>Accessibility</h2>
<p data-status="measured">Accessibility score ${score} (its own score, Lighthouse's weights; not part of the report's score) · ${summary.passed} passed, ${summary.failed} failed, ${summary.needs_review} to review, ${summary.not_applicable} not applicable.</p>
${
  failing.length
    ? `<h3>Failed, costliest first</h3><ol class="fixes a11y-failures">\n${failing
        .map((e) => ruleHtml(e, total > 0 ? (100 * (accessibilityRule(e.id)?.weight ?? 0)) / total : 0))
        .join('\n')}\n</ol>`
    : '<p>No accessibility rule failed.</p>'
}
${
  review.length
    ? `<h3>Needs review</h3><p class="muted">Elements axe could not judge alone (not counted as failures): look at them yourself.</p><ul class="a11y-review">\n${review
        .map((e) => ruleHtml(e, null))
        .join('\n')}\n</ul>`
    : ''
}
</section>`;
}
