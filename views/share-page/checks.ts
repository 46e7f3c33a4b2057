/** Every check of a report, section by section: title, outcome, value and explanation. */
import { escapeHtml } from './escape.ts';
import { costText } from './summary.ts';
import { valueHtml } from './value-html.ts';
import type { CheckView, SectionView } from './view.ts';

function checkHtml(check: CheckView): string {
  const entry = check.entry;
  const outcome = check.passed ? '<span class="pass">Passed</span>' : '<span class="fail">Failed</span>';
  const weight = check.points > 0 ? `worth ${Math.round(check.points * 10) / 10} points` : costText(0);
  const learn = entry?.learnMore
    ? ` <a class="learn" href="${escapeHtml(entry.learnMore)}" rel="noopener noreferrer">Learn more</a>`
    : '';
  return `<article class="check ${check.passed ? 'passed' : 'failed'}" id="check-${escapeHtml(check.id)}">
<div class="row"><h3>${escapeHtml(check.title)}</h3><span>${outcome} <span class="muted">· ${escapeHtml(weight)}${check.rendered ? ' · rendered page' : ''}</span></span></div>
${entry ? `<p class="about">${escapeHtml(entry.description)}${learn}</p>` : ''}
${valueHtml(check)}
${entry && !check.passed ? `<p class="fix"><strong>How to fix:</strong> ${escapeHtml(entry.fix)}</p>` : ''}
</article>`;
}

/** One section per category with all of its checks. */
export function sectionsHtml(sections: SectionView[]): string {
  return sections
    .map(
      (s) => `<section id="section-${escapeHtml(s.category)}"><h2>${escapeHtml(s.title)}</h2>
<p class="muted">${s.passed} passed, ${s.failed} failed.</p>
${s.checks.map(checkHtml).join('\n')}
</section>`,
    )
    .join('\n');
}
