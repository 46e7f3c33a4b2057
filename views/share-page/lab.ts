/**
 * The lab measurements of a rendered report, each in Lighthouse's band: good up to the
 * metric's p10 control point, needs improvement up to its median, poor beyond (the score
 * colours of a Lighthouse report; curves in analyzer/render/lab.ts).
 */
import { labCurves, type MetricCurve } from '../../src/analyzer/render/lab.ts';
import { escapeHtml } from './escape.ts';
import { formatBytes, formatMilliseconds, formatNumber } from './format-value.ts';
import type { CheckView, SectionView } from './view.ts';

/** Lighthouse's band of a measurement. */
export type Band = 'good' | 'average' | 'poor';
const bandWords: Record<Band, string> = { good: 'Good', average: 'Needs improvement', poor: 'Poor' };

interface Metric {
  id: string;
  /** The number measured, from the stored value. */
  read(value: unknown): number | null;
  format(n: number): string;
  /** Band by the curve (lower is better), or by score (higher is better). */
  band(n: number): Band;
  /** The thresholds, in words. */
  bands: string;
}

const ms = (v: unknown): number | null =>
  typeof v === 'object' && v !== null && typeof (v as { ms?: unknown }).ms === 'number'
    ? (v as { ms: number }).ms
    : null;
const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
const byCurve =
  (curve: MetricCurve) =>
  (n: number): Band =>
    n <= curve.p10 ? 'good' : n <= curve.median ? 'average' : 'poor';

const timing = (id: string, curve: MetricCurve): Metric => ({
  id,
  read: ms,
  format: (n) => formatMilliseconds(n),
  band: byCurve(curve),
  bands: `good ≤ ${formatMilliseconds(curve.p10)}, poor > ${formatMilliseconds(curve.median)}`,
});

const metrics: Metric[] = [
  timing('first_contentful_paint', labCurves.fcp),
  timing('largest_contentful_paint', labCurves.lcp),
  timing('total_blocking_time', labCurves.tbt),
  {
    id: 'cumulative_layout_shift',
    read: num,
    format: (n) => formatNumber(n, 'unitless'),
    band: byCurve(labCurves.cls),
    bands: `good ≤ ${labCurves.cls.p10}, poor > ${labCurves.cls.median}`,
  },
  {
    id: 'total_byte_weight',
    read: num,
    format: (n) => formatBytes(n),
    band: byCurve(labCurves.bytes),
    bands: `good ≤ ${formatBytes(labCurves.bytes.p10)}, poor > ${formatBytes(labCurves.bytes.median)}`,
  },
  {
    id: 'lab_performance_score',
    read: num,
    format: (n) => formatNumber(n, 'score'),
    band: (n) => (n >= 90 ? 'good' : n >= 50 ? 'average' : 'poor'),
    bands: 'good ≥ 90, poor < 50',
  },
];

/** The measurements table, or '' when the report was not rendered. */
export function labHtml(sections: SectionView[]): string {
  const checks = new Map<string, CheckView>(
    sections
      .flatMap((s) => s.checks)
      .filter((c) => c.rendered)
      .map((c) => [c.id, c]),
  );
  const rows = metrics.flatMap((m) => {
    const check = checks.get(m.id);
    if (!check) return [];
    const n = m.read(check.value);
    const band = n === null ? undefined : m.band(n);
    return [
      `<tr><th scope="row"><a href="#check-${escapeHtml(m.id)}">${escapeHtml(check.title)}</a></th><td class="num">${n === null ? 'Not measured' : escapeHtml(m.format(n))}</td><td>${band ? `<span class="band ${band}">${bandWords[band]}</span>` : ''}</td><td class="muted">${escapeHtml(m.bands)}</td></tr>`,
    ];
  });
  if (!rows.length) return '';
  return `<section id="lab"><h2>Lab measurements</h2>
<p class="muted">Measured on the page as Chromium rendered it (desktop, unthrottled), banded as Lighthouse does.</p>
<table><thead><tr><th scope="col">Metric</th><th scope="col" class="num">Value</th><th scope="col">Band</th><th scope="col">Thresholds</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></section>`;
}
