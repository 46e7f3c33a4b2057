/** The top of a report: the gauge, counts per section, and the failures to fix first. */
import { escapeHtml } from './escape.ts';
import { scoreGauge } from './gauge.ts';
import { valueHtml } from './value-html.ts';
import type { CheckView, SectionView } from './view.ts';

const gradeWords: Record<string, string> = { good: 'Good', decent: 'Decent', bad: 'Bad' };

/** Points as "−10.4 points", or "not scored" for a check of weight 0. */
export function costText(points: number): string {
  if (points <= 0) return 'not scored';
  const rounded = Math.round(points * 10) / 10;
  return `−${rounded} ${rounded === 1 ? 'point' : 'points'}`;
}

/** Gauge, grade and the passed/failed table per section. */
export function overviewHtml(score: number, grade: string, sections: SectionView[]): string {
  const rows = sections
    .map(
      (s) =>
        `<tr><th scope="row"><a href="#section-${escapeHtml(s.category)}">${escapeHtml(s.title)}</a></th><td class="num pass">${s.passed}</td><td class="num${s.failed ? ' fail' : ''}">${s.failed}</td></tr>`,
    )
    .join('\n');
  const passed = sections.reduce((n, s) => n + s.passed, 0);
  const failed = sections.reduce((n, s) => n + s.failed, 0);
  return `<section class="overview" aria-label="Summary">
${scoreGauge(score, grade)}
<div class="counts">
<p>Grade <span class="grade ${escapeHtml(grade)}">${escapeHtml(gradeWords[grade] ?? grade)}</span> · Score <strong>${escapeHtml(score)}</strong> of 100 · ${passed} checks passed, ${failed} failed</p>
<table><thead><tr><th scope="col">Section</th><th scope="col" class="num">Passed</th><th scope="col" class="num">Failed</th></tr></thead>
<tbody>${rows}</tbody></table>
</div>
</section>`;
}

function fixItem(check: CheckView): string {
  const fix = check.entry?.fix;
  return `<li id="fix-${escapeHtml(check.id)}">
<div class="row"><h3><a href="#check-${escapeHtml(check.id)}">${escapeHtml(check.title)}</a></h3><span class="cost${check.points > 0 ? '' : ' unscored'}">${escapeHtml(costText(check.points))}</span></div>
${fix ? `<p class="fix"><strong>How to fix:</strong> ${escapeHtml(fix)}</p>` : ''}
${valueHtml(check)}
</li>`;
}

/** The failed checks, costliest first, each with its fix; those not scored (weight 0) listed after. */
export function fixFirstHtml(failures: CheckView[]): string {
  if (failures.length === 0) {
    return `<section id="fix-first"><h2>What to fix</h2><p>Every check passed.</p></section>`;
  }
  const scored = failures.filter((c) => c.points > 0);
  const unscored = failures.filter((c) => c.points <= 0);
  const also = unscored.length
    ? `<p>Also failed, not scored: ${unscored
        .map((c) => `<a href="#check-${escapeHtml(c.id)}">${escapeHtml(c.title)}</a>`)
        .join(', ')}.</p>`
    : '';
  return `<section id="fix-first"><h2>What to fix first</h2>
<p class="muted">Failed checks, those that cost the most points first.</p>
${scored.length ? `<ol class="fixes">\n${scored.map(fixItem).join('\n')}\n</ol>` : ''}
${also}</section>`;
}
