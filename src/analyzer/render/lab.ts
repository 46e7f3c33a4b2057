/**
 * Lab checks from a rendered page, scored with Lighthouse's published thresholds.
 *
 * Pages are rendered at a desktop viewport (1350x940, DPR 1) without throttling, so the
 * reference is Lighthouse 12's *desktop* scoring. Each metric gets Lighthouse's log-normal
 * score (0.9 at the p10 value, 0.5 at the median), and passes, like a green Lighthouse metric,
 * when that score is at least 0.9, which is exactly when the value is at most p10:
 *
 *   metric                     p10        median     check id                    importance
 *   first contentful paint     934 ms     1600 ms    first_contentful_paint      medium
 *   largest contentful paint   1200 ms    2400 ms    largest_contentful_paint    high
 *   total blocking time        150 ms     350 ms     total_blocking_time         medium
 *   cumulative layout shift    0.1        0.25       cumulative_layout_shift     high
 *   total byte weight          2667 KiB   4000 KiB   total_byte_weight           low
 *
 * `lab_performance_score` is Lighthouse's weighted mean of the metric scores (FCP 10, LCP 25,
 * TBT 30, CLS 25; Speed Index, weight 10, is not measured and left out), 0-100, passing at 90.
 * Opportunity checks follow Lighthouse's cut-offs: an image wastes bytes when it is at least
 * 4 KiB larger than its displayed size needs (uses-responsive-images), and render-blocking
 * resources are those Chromium marks `renderBlockingStatus: "blocking"`. Offscreen images
 * follow offscreen-images: an image without a `loading` attribute, at least 75 % outside the
 * area Lighthouse counts as visible (see ImageGeometry.offscreenShare), wasting 2 KiB or more
 * (its bytes times that share), requested at least 50 ms before the page became interactive
 * ({@link interactiveMs}); an image used twice counts once, at its least wasteful use.
 * Lighthouse also counts CSS background images; we look at <img> elements only.
 */
import { checkIdentity } from '../checks/definitions.ts';
import type { LabCheckId } from '../checks/lab.ts';
import type { CheckResult } from '../checks/types.ts';
import { cumulativeLayoutShift, interactiveMs, totalBlockingTime } from './collect.ts';
import type { RenderedPage } from './render.ts';

/** A check result computed from the rendered page. */
export type RenderedCheckResult = CheckResult & { rendered: true };

/** Lighthouse's curve control points for one metric. */
export interface MetricCurve {
  p10: number;
  median: number;
}

/** Lighthouse 12 desktop control points. */
export const labCurves = {
  fcp: { p10: 934, median: 1600 },
  lcp: { p10: 1200, median: 2400 },
  tbt: { p10: 150, median: 350 },
  cls: { p10: 0.1, median: 0.25 },
  bytes: { p10: 2667 * 1024, median: 4000 * 1024 },
} as const satisfies Record<string, MetricCurve>;

/** Lighthouse's performance weights for the metrics we measure. */
export const labWeights = { fcp: 10, lcp: 25, tbt: 30, cls: 25 } as const;

/** Bytes an image must waste before it counts (Lighthouse's thresholds). */
const responsiveWasteBytes = 4096;
const offscreenMinBytes = 2048;
const offscreenMinShare = 0.75;
/** Images requested this close to interactive or later are not flagged (IGNORE_THRESHOLD_IN_MS). */
const offscreenBeforeInteractiveMs = 50;

/** erf, Abramowitz and Stegun 7.1.26 (error below 1.5e-7). */
function erf(x: number): number {
  const sign = Math.sign(x);
  const t = 1 / (1 + 0.3275911 * Math.abs(x));
  const y =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return sign * y;
}

/**
 * Lighthouse's log-normal score of `value` on `curve`: 1 at 0, 0.9 at p10, 0.5 at the median,
 * towards 0 beyond; kept in the band its value falls in (>= 0.9 up to p10, >= 0.5 up to the median).
 */
export function logNormalScore(curve: MetricCurve, value: number): number {
  if (value <= 0) return 1;
  // Phi^-1(0.9) = 1.2815515655: the standard normal quantile that puts p10 at a score of 0.9.
  const sigma = Math.log(curve.median / curve.p10) / 1.2815515655;
  const z = Math.log(value / curve.median) / sigma;
  const raw = (1 - erf(z / Math.SQRT2)) / 2;
  let score: number;
  if (value <= curve.p10) score = Math.max(0.9, Math.min(1, raw));
  else if (value <= curve.median) score = Math.max(0.5, Math.min(0.8999, raw));
  else score = Math.max(0, Math.min(0.4999, raw));
  return Math.round(score * 100) / 100;
}

/**
 * A verdict of check `id` (a lab check, or a page check measured again here); its category and
 * importance come from its definition (checks/lab.ts, checks/page/).
 */
function check(
  id: LabCheckId | 'http_requests' | 'mixed_content',
  passed: boolean,
  value: unknown,
  details: unknown[] = [],
): RenderedCheckResult {
  const { category, importance } = checkIdentity(id)!;
  return { id, category, importance, passed, value, details: details.slice(0, 20), rendered: true };
}

const round = (n: number, digits = 0): number => Math.round(n * 10 ** digits) / 10 ** digits;

function metricCheck(
  id: LabCheckId,
  curve: MetricCurve,
  value: number | null,
  unit: string,
  what: string,
): RenderedCheckResult {
  if (value === null) return check(id, false, null, [`No ${what} was recorded (nothing was painted).`]);
  const score = logNormalScore(curve, value);
  const shown = unit === '' ? round(value, 3) : Math.round(value);
  const passed = value <= curve.p10;
  const details = passed
    ? []
    : [`${what} ${shown}${unit} (good up to ${curve.p10}${unit}, median ${curve.median}${unit}).`];
  return check(id, passed, unit === '' ? shown : { ms: shown, score }, details);
}

/** The lab measurements of a rendered page as they appear in the report. */
export interface LabSummary {
  fcpMs: number | null;
  lcpMs: number | null;
  cls: number;
  tbtMs: number;
  score: number;
}

/** Summary numbers and the Lighthouse-weighted score. */
export function labSummary(page: RenderedPage): LabSummary {
  const { facts } = page;
  const cls = cumulativeLayoutShift(facts.shifts);
  const tbtMs = totalBlockingTime(facts.longTasks, facts.fcpMs);
  const scores = {
    fcp: facts.fcpMs === null ? 0 : logNormalScore(labCurves.fcp, facts.fcpMs),
    lcp: facts.lcpMs === null ? 0 : logNormalScore(labCurves.lcp, facts.lcpMs),
    tbt: logNormalScore(labCurves.tbt, tbtMs),
    cls: logNormalScore(labCurves.cls, cls),
  };
  let weighted = 0;
  let total = 0;
  for (const [key, weight] of Object.entries(labWeights)) {
    weighted += weight * scores[key as keyof typeof scores];
    total += weight;
  }
  return { fcpMs: facts.fcpMs, lcpMs: facts.lcpMs, cls, tbtMs, score: Math.round((100 * weighted) / total) };
}

/** Transfer size of each URL the page loaded. */
function bytesByUrl(page: RenderedPage): Map<string, number> {
  const map = new Map<string, number>();
  for (const n of page.network) map.set(n.url, Math.max(map.get(n.url) ?? 0, n.bytes));
  return map;
}

/** The lab checks of a rendered page. `maxRequests` is the analyzer's request threshold. */
export function labChecks(page: RenderedPage, maxRequests: number): RenderedCheckResult[] {
  const summary = labSummary(page);
  const sizes = bytesByUrl(page);
  const out: RenderedCheckResult[] = [
    metricCheck('first_contentful_paint', labCurves.fcp, summary.fcpMs, ' ms', 'First contentful paint'),
    metricCheck('largest_contentful_paint', labCurves.lcp, summary.lcpMs, ' ms', 'Largest contentful paint'),
    metricCheck('total_blocking_time', labCurves.tbt, summary.tbtMs, ' ms', 'Total blocking time'),
    metricCheck('cumulative_layout_shift', labCurves.cls, summary.cls, '', 'Cumulative layout shift'),
  ];
  if (page.facts.lcpElement && out[1]) out[1].details.push(`Largest element: ${page.facts.lcpElement}`);
  out.push(
    check(
      'lab_performance_score',
      summary.score >= 90,
      summary.score,
      summary.score >= 90 ? [] : [`Lab score ${summary.score} (Lighthouse weights; good from 90).`],
    ),
  );

  const byType: Record<string, { count: number; bytes: number }> = {};
  let bytes = 0;
  for (const n of page.network) {
    const t = (byType[n.type] ??= { count: 0, bytes: 0 });
    t.count++;
    t.bytes += n.bytes;
    bytes += n.bytes;
  }
  const subresources = page.network.filter((n) => n.type !== 'document').length;
  const requestDetails =
    subresources <= maxRequests
      ? []
      : Object.entries(byType).map(([t, v]) => `${v.count} ${t} request(s), ${v.bytes} bytes`);
  // Requests the address guard refused are reported here; they are the guard's doing, not a page fault.
  requestDetails.push(...page.blocked.map((b) => `refused ${b.target}: ${b.reason}`));
  out.push(
    check(
      'http_requests',
      subresources <= maxRequests,
      { total: subresources, bytes, byType, refused: page.blocked.length },
      requestDetails,
    ),
    check(
      'total_byte_weight',
      bytes <= labCurves.bytes.p10,
      bytes,
      bytes <= labCurves.bytes.p10
        ? []
        : [`The page loaded ${Math.round(bytes / 1024)} KiB (good up to ${labCurves.bytes.p10 / 1024} KiB).`],
    ),
  );

  const blocking = [...new Set(page.facts.renderBlocking)];
  out.push(check('render_blocking_resources', blocking.length === 0, blocking.length, blocking));

  const dpr = page.facts.devicePixelRatio;
  const oversized: string[] = [];
  const interactive = interactiveMs(page.facts);
  // The least offscreen use of each URL: Lighthouse keeps an image's least wasteful use.
  const offscreenShare = new Map<string, number>();
  for (const img of page.facts.images) {
    const size = sizes.get(img.src) ?? 0;
    const natural = img.naturalWidth * img.naturalHeight;
    if (natural > 0 && img.width > 0 && img.height > 0 && size > 0) {
      const needed = Math.min(natural, img.width * dpr * img.height * dpr);
      const wasted = size * (1 - needed / natural);
      if (wasted >= responsiveWasteBytes) {
        oversized.push(
          `${img.src.slice(0, 200)}: ${img.naturalWidth}x${img.naturalHeight} shown at ${Math.round(img.width)}x${Math.round(img.height)} (${Math.round(wasted / 1024)} KiB wasted)`,
        );
      }
    }
    const requestedInTime =
      interactive !== null && img.requestedMs !== null && img.requestedMs < interactive - offscreenBeforeInteractiveMs;
    if (!img.loadingSet && size > 0 && requestedInTime) {
      offscreenShare.set(img.src, Math.min(offscreenShare.get(img.src) ?? 1, img.offscreenShare));
    }
  }
  const offscreen: string[] = [];
  for (const [src, share] of offscreenShare) {
    const waste = (sizes.get(src) ?? 0) * share;
    if (share >= offscreenMinShare && waste >= offscreenMinBytes) {
      offscreen.push(`${src.slice(0, 200)} (${Math.round(waste / 1024)} KiB offscreen, requested before interactive)`);
    }
  }
  out.push(
    check('oversized_images', oversized.length === 0, oversized.length, oversized),
    check('offscreen_images', offscreen.length === 0, offscreen.length, offscreen),
  );

  const https = page.finalUrl.startsWith('https:');
  out.push(
    check(
      'mixed_content',
      page.mixedContent.length === 0,
      https ? page.mixedContent.length : 'not applicable (http page)',
      page.mixedContent,
    ),
    check('console_errors', page.consoleErrors.length === 0, page.consoleErrors.length, page.consoleErrors),
  );
  return out;
}
