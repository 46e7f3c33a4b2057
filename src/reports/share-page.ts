import escape from 'escape-html';
import type { Report } from '../entities/report.entity.ts';
import { fullUrlOf } from './urls.ts';
import { byCategory, type ReportResults } from './results.ts';

/** Escapes text for HTML element content and attribute values (the escape-html library). */
export function escapeHtml(value: unknown): string {
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- takes any value by design, like escape-html itself; callers JSON-encode objects first
  return escape(typeof value === 'string' ? value : value === null || value === undefined ? '' : String(value));
}

const categoryTitles: Record<string, string> = {
  seo: 'SEO',
  performance: 'Performance',
  security: 'Security',
  miscellaneous: 'Miscellaneous',
};

interface CheckView {
  id: string;
  importance?: string;
  passed: boolean;
  value?: unknown;
  details?: unknown[];
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>
:root{color-scheme:light dark}
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}
.grade{display:inline-block;padding:.2rem .7rem;border-radius:.4rem;font-weight:700;color:#fff}
.good{background:#167d3a}.decent{background:#9a6400}.bad{background:#b3261e}
table{border-collapse:collapse;width:100%;margin-bottom:1.5rem}td,th{border:1px solid #8886;padding:.35rem .5rem;text-align:left;vertical-align:top}
.pass{color:#167d3a;font-weight:600}.fail{color:#b3261e;font-weight:600}
@media (prefers-color-scheme: dark){.pass{color:#5fd58a}.fail{color:#ff8a80}}
code{font:13px ui-monospace,monospace;word-break:break-all}
form{display:flex;gap:.5rem;align-items:end;flex-wrap:wrap}input{font:inherit;padding:.4rem}button{font:inherit;padding:.4rem .9rem}
.error{color:#b3261e}
</style></head><body>
${body}
</body></html>`;
}

function formatValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return escapeHtml(JSON.stringify(value));
  return escapeHtml(value);
}

function formatDetails(details: unknown[] | undefined): string {
  if (!details?.length) return '';
  return `<ul>${details.map((d) => `<li><code>${formatValue(d)}</code></li>`).join('')}</ul>`;
}

const labMetrics: Array<[id: string, label: string]> = [
  ['first_contentful_paint', 'First contentful paint'],
  ['largest_contentful_paint', 'Largest contentful paint'],
  ['total_blocking_time', 'Total blocking time'],
  ['cumulative_layout_shift', 'Cumulative layout shift'],
  ['lab_performance_score', 'Lab performance score'],
  ['total_byte_weight', 'Bytes loaded'],
];

/** The lab measurements of a rendered analysis (empty when the page was not rendered). */
function renderMeasurements(results: ReportResults | null | undefined): string {
  const checks = new Map(
    Object.entries(results ?? {})
      .filter(([, c]) => c.rendered)
      .map(([id, c]) => [id, { id, ...c }]),
  );
  const rows = labMetrics
    .filter(([id]) => checks.has(id))
    .map(([id, label]) => {
      const c = checks.get(id)!;
      const v = c.value as { ms: number } | number | null; // as lab.ts writes them
      const shown =
        v && typeof v === 'object' && 'ms' in v
          ? `${v.ms} ms`
          : id === 'total_byte_weight'
            ? `${Math.round(Number(v) / 1024)} KiB`
            : String(v ?? '');
      return `<tr><th scope="row">${escapeHtml(label)}</th><td class="${c.passed ? 'pass' : 'fail'}">${escapeHtml(shown)}</td></tr>`;
    });
  if (!rows.length) return '';
  return `<h2>Lab measurements (rendered in Chromium)</h2>
<table><tbody>${rows.join('')}</tbody></table>`;
}

/** The report page: grade, score, and every check by category with its details. No scripts. */
export function renderReportPage(
  report: Pick<Report, 'id' | 'url' | 'project' | 'result' | 'score' | 'results' | 'generatedAt'>,
): string {
  const sections = byCategory(report.results as ReportResults).map(([category, checks]) => {
    const rows = (checks as CheckView[])
      .map(
        (
          c,
        ) => `<tr><td><code>${escapeHtml(c.id)}</code></td><td class="${c.passed ? 'pass' : 'fail'}">${c.passed ? 'Passed' : 'Failed'}</td>
<td>${escapeHtml(c.importance ?? '')}</td><td>${formatValue(c.value)}${formatDetails(c.details)}</td></tr>`,
      )
      .join('\n');
    return `<h2>${escapeHtml(categoryTitles[category] ?? category)}</h2>
<table><thead><tr><th scope="col">Check</th><th scope="col">Outcome</th><th scope="col">Importance</th><th scope="col">Value and details</th></tr></thead>
<tbody>${rows}</tbody></table>`;
  });
  return layout(
    `Report for ${report.url}`,
    `<h1>Report for <code>${escapeHtml(fullUrlOf(report))}</code></h1>
<p><span class="grade ${escapeHtml(report.result)}">${escapeHtml(report.result)}</span> Score <strong>${escapeHtml(report.score)}</strong> of 100.
Project <code>${escapeHtml(report.project)}</code>. Generated ${escapeHtml(report.generatedAt.toISOString())}.</p>
${renderMeasurements(report.results as ReportResults | null)}
${sections.join('\n')}`,
  );
}

/** A share id as the share page accepts it: 22 base64url characters. */
export const SHARE_ID = /^[A-Za-z0-9_-]{22}$/;

/**
 * The address of a report's share page: under `publicUrl` (PUBLIC_URL) when configured, else
 * root-relative. Never built from the request's Host, which a client controls.
 */
export function shareUrl(shareId: string, publicUrl?: string): string {
  return `${publicUrl ?? ''}/reports/${shareId}`;
}

/** The password form of a password-protected report. */
export function renderPasswordPage(shareId: string, error?: string): string {
  return layout(
    'Password required',
    `<h1>This report is protected</h1>
<p>Enter the report's password to see it.</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/reports/${escapeHtml(shareId)}">
<label>Password <input type="password" name="password" required autocomplete="current-password" autofocus></label>
<button type="submit">Show report</button>
</form>`,
  );
}

/** A plain message page (not found, too many attempts). */
export function renderMessagePage(title: string, message: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}
