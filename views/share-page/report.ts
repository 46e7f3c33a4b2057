/**
 * The share page of a report: what a person needs to act on it, top to bottom. The grade and
 * score, counts per section, the failures costliest first with their fixes, the lab
 * measurements of a rendered report, its accessibility category (or that it needs rendering),
 * then every check with its value and explanation. No
 * scripts; link-preview meta in the head; a print stylesheet (layout.ts).
 */
import type { Importance } from '../../src/analyzer/index.ts';
import type { Report } from '../../src/entities/report.entity.ts';
import type { ReportResults } from '../../src/reports/results.ts';
import { accessibilityHtml } from './accessibility.ts';
import { sectionsHtml } from './checks.ts';
import { escapeHtml } from './escape.ts';
import { labHtml } from './lab.ts';
import { layout } from './layout.ts';
import { fixFirstHtml, overviewHtml } from './summary.ts';
import { failuresByCost, reportView } from './view.ts';

/** What the page shows of a report. */
export type ReportPageInput = Pick<
  Report,
  'id' | 'url' | 'fullUrl' | 'project' | 'result' | 'score' | 'results' | 'generatedAt'
>;

/** How the page is rendered: the analyzer's weights (for what each failure costs) and its address. */
export interface ReportPageOptions {
  weights: Record<Importance, number>;
  /** Absolute address of this page (og:url), when the service's public URL is configured. */
  pageUrl?: string;
}

/** The report page. */
export function renderReportPage(report: ReportPageInput, options: ReportPageOptions): string {
  const sections = reportView(report.results as ReportResults | null, options.weights);
  const failures = failuresByCost(sections);
  const url = report.fullUrl;
  const failed = failures.length;
  const total = sections.reduce((n, s) => n + s.checks.length, 0);
  const top = failures
    .filter((c) => c.points > 0)
    .slice(0, 3)
    .map((c) => c.title);
  const description =
    `Score ${report.score}/100 (${report.result}): ${total - failed} of ${total} checks passed.` +
    (top.length ? ` Fix first: ${top.join(', ')}.` : '');
  const generated = report.generatedAt.toISOString().replace('T', ' ').slice(0, 16);
  return layout(
    `Report for ${report.url}`,
    `<header>
<p class="eyebrow">Website audit</p>
<h1>Report for <span class="code">${escapeHtml(url)}</span></h1>
<p class="muted">Project ${escapeHtml(report.project)} · generated <time datetime="${escapeHtml(report.generatedAt.toISOString())}">${escapeHtml(generated)} UTC</time></p>
</header>
${overviewHtml(report.score, report.result, sections)}
${fixFirstHtml(failures)}
${labHtml(sections)}
${accessibilityHtml(report.results as ReportResults | null)}
${sectionsHtml(sections)}`,
    { title: `Report for ${report.url}: ${report.result}, ${report.score}/100`, description, url: options.pageUrl },
  );
}
