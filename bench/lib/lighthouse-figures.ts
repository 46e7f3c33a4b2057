/**
 * Per-metric figures of bench/lighthouse: pass/fail agreement over run pairs, Lighthouse's
 * failures we caught, and value errors over pages (each tool's median over its runs).
 */

/** One page, one run, both tools. Check ids are ours; values are in each tool's units (ms, CLS). */
export interface Measured {
  page: string;
  run: number;
  oursOk: boolean;
  lighthouseOk: boolean;
  /** Passed per check id (null: not made or not applicable). */
  ours: Record<string, boolean | null>;
  lighthouse: Record<string, boolean | null>;
  /** Metric values per check id. */
  oursValues: Record<string, number | null>;
  lighthouseValues: Record<string, number | null>;
  /** Both values as shown, per check id, for disagreements. */
  details: Record<string, string>;
}

/** Figures of one metric. */
export interface MetricFigures {
  id: string;
  pairs: number;
  agreed: number;
  lighthouseFailures: number;
  caught: number;
  /** Pages with a value from both tools. */
  pages: number;
  medianRelativeError: number;
  worstRelativeError: number;
  medianAbsoluteError: number;
  worstAbsoluteError: number;
  /** Pages whose error is outside 25 % (and, for CLS, 0.02 absolute). */
  outliers: string[];
  meetsTargets: boolean;
}

/** Absolute error that counts as within target whatever the relative error (CLS only). */
const absoluteTolerance: Record<string, number> = { cumulative_layout_shift: 0.02 };

function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function medianValue(rows: Measured[], id: string, key: 'oursValues' | 'lighthouseValues'): number | null {
  const values = rows.map((r) => r[key][id]).filter((v): v is number => typeof v === 'number');
  return values.length ? median(values) : null;
}

/** Figures for each metric in `ids` from every run pair in `measured`. */
export function metricFigures(measured: Measured[], ids: string[]): MetricFigures[] {
  const pages = [...new Set(measured.map((m) => m.page))];
  return ids.map((id) => {
    let pairs = 0;
    let agreed = 0;
    let lighthouseFailures = 0;
    let caught = 0;
    for (const m of measured) {
      const o = m.ours[id];
      const l = m.lighthouse[id];
      if (!m.oursOk || !m.lighthouseOk || o == null || l == null) continue;
      pairs++;
      if (o === l) agreed++;
      if (!l) {
        lighthouseFailures++;
        if (!o) caught++;
      }
    }
    const relative: number[] = [];
    const absolute: number[] = [];
    const effective: number[] = [];
    const outliers: string[] = [];
    for (const page of pages) {
      const rows = measured.filter((m) => m.page === page);
      const o = medianValue(
        rows.filter((r) => r.oursOk),
        id,
        'oursValues',
      );
      const l = medianValue(
        rows.filter((r) => r.lighthouseOk),
        id,
        'lighthouseValues',
      );
      if (o === null || l === null) continue;
      const abs = Math.abs(o - l);
      const rel = l > 0 ? abs / l : abs === 0 ? 0 : Infinity;
      absolute.push(abs);
      relative.push(rel);
      const within = abs <= (absoluteTolerance[id] ?? 0) ? 0 : rel;
      effective.push(within);
      if (within > 0.25) outliers.push(`${page}: ours ${round(o, 3)}, Lighthouse ${round(l, 3)}`);
    }
    const figures: MetricFigures = {
      id,
      pairs,
      agreed,
      lighthouseFailures,
      caught,
      pages: relative.length,
      medianRelativeError: median(relative),
      worstRelativeError: Math.max(...relative),
      medianAbsoluteError: median(absolute),
      worstAbsoluteError: Math.max(...absolute),
      outliers,
      meetsTargets: false,
    };
    figures.meetsTargets =
      caught >= 0.95 * lighthouseFailures && median(effective) <= 0.1 && Math.max(...effective) <= 0.25;
    return figures;
  });
}

function round(n: number, digits = 0): number {
  return Math.round(n * 10 ** digits) / 10 ** digits;
}

const pct = (n: number) => (Number.isFinite(n) ? `${round(100 * n, 1)} %` : 'n/a (Lighthouse 0)');

/** Print the per-page medians and the per-metric table (Markdown, for bench/README.md). */
export function printFigures(figures: MetricFigures[], measured: Measured[]): void {
  const ids = figures.map((f) => f.id);
  const short: Record<string, string> = {
    first_contentful_paint: 'FCP ms',
    largest_contentful_paint: 'LCP ms',
    total_blocking_time: 'TBT ms',
    cumulative_layout_shift: 'CLS',
  };
  console.log(`\n| page | ${ids.map((id) => `${short[id] ?? id} ours / LH`).join(' | ')} |`);
  console.log(`|---|${ids.map(() => '---').join('|')}|`);
  for (const page of [...new Set(measured.map((m) => m.page))]) {
    const rows = measured.filter((m) => m.page === page);
    const cells = ids.map((id) => {
      const digits = id === 'cumulative_layout_shift' ? 3 : 0;
      const o = medianValue(
        rows.filter((r) => r.oursOk),
        id,
        'oursValues',
      );
      const l = medianValue(
        rows.filter((r) => r.lighthouseOk),
        id,
        'lighthouseValues',
      );
      return `${o === null ? '-' : round(o, digits)} / ${l === null ? '-' : round(l, digits)}`;
    });
    console.log(`| ${page} | ${cells.join(' | ')} |`);
  }
  console.log(
    '\n| metric | pass/fail agree (run pairs) | Lighthouse failures we caught | median error | worst error | median / worst abs | targets |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const f of figures) {
    const digits = f.id === 'cumulative_layout_shift' ? 3 : 0;
    console.log(
      `| ${short[f.id] ?? f.id} | ${f.agreed}/${f.pairs} | ${f.caught}/${f.lighthouseFailures} | ${pct(f.medianRelativeError)} | ${pct(f.worstRelativeError)} | ${round(f.medianAbsoluteError, digits)} / ${round(f.worstAbsoluteError, digits)} | ${f.meetsTargets ? 'met' : 'NOT met'} |`,
    );
  }
  for (const f of figures) for (const o of f.outliers) console.log(`  ${short[f.id] ?? f.id} outside 25 %: ${o}`);
}
