/**
 * The rendering analyzer: the raw-HTML analysis first, then, when asked or when the raw page
 * looks like a client-rendered shell, a render in Chromium whose document replaces the raw
 * one for the checks that read the document, plus lab measurements.
 *
 * Modes: `never` (raw HTML only), `auto` (render when the raw HTML looks like a shell, or when a
 * request asks), `always` (render every page unless a request says `render=0`).
 */
import { analyzeUrl, type AnalysisResult } from '../analyze.ts';
import type { TargetUrl } from '../address-guard.ts';
import { AnalyzeError } from '../errors.ts';
import { pageChecks } from '../checks/registry.ts';
import type { CheckResult, ResultsByCategory } from '../checks/types.ts';
import type { AnalyzerOptions } from '../options.ts';
import { runPageChecks, type CheckInput } from '../check-worker.ts';
import { FairPool, SaturatedError } from '../pool.ts';
import { deadlineSignal } from '../abortable.ts';
import { BrowserCrashedError, BrowserPool, BrowserUnavailableError, RenderBusyError } from './browser.ts';
import { accessibilityScore } from '../checks/accessibility-rules.ts';
import { accessibilityChecks } from './accessibility-results.ts';
import { labChecks, labSummary, type LabSummary, type RenderedCheckResult } from './lab.ts';
import { renderPage, type RenderedPage } from './render.ts';
import { renderSettingsFrom, type RenderSettings } from './settings.ts';

/** How the render went, kept beside the results. */
export interface RenderingInfo {
  /** `rendered`; `skipped` (mode or not a shell); `failed` (the browser could not render it). */
  status: 'rendered' | 'skipped' | 'failed';
  reason?: string;
  lab?: LabSummary;
  /**
   * The accessibility category of a rendered page: its score (null when no rule applies) and
   * how long axe took, ms; `error` when axe could not run (the report then has no such checks).
   */
  accessibility?: { score: number | null; elapsedMs: number; error?: string };
  elapsedMs?: number;
}

/** An analysis with its rendering outcome. */
export type RenderedAnalysis = AnalysisResult & { rendering: RenderingInfo };

/**
 * Checks that read the document and are re-run on the rendered DOM (marked `rendered: true`):
 * the page checks that say `rendered` (checks/page/).
 */
const renderedCheckIds: ReadonlySet<string> = new Set(pageChecks.filter((c) => c.rendered).map((c) => c.id));

function find(result: AnalysisResult, id: string): CheckResult | undefined {
  for (const list of Object.values(result.results)) {
    const hit = list.find((c) => c.id === id);
    if (hit) return hit;
  }
  return undefined;
}

/**
 * Whether a raw analysis looks like a client-rendered shell: almost no visible words, no
 * heading, and at least one script to build the page.
 */
export function looksClientRendered(result: AnalysisResult): boolean {
  const words = Number(find(result, 'content_length')?.value ?? 0);
  const h1 = find(result, 'headings')?.value;
  const requests = find(result, 'http_requests')?.value as { byType?: Record<string, number> } | undefined;
  const scripts = requests?.byType?.['script'] ?? 0;
  return words < 50 && (!Array.isArray(h1) || h1.length === 0) && scripts > 0;
}

/**
 * Put the rendered checks into `raw`'s results: a check with the same id is replaced in place,
 * new ones are appended to their category.
 */
export function mergeRendered(raw: AnalysisResult, rendered: RenderedCheckResult[]): AnalysisResult {
  const results = Object.fromEntries(
    Object.entries(raw.results).map(([k, v]) => [k, [...v]]),
  ) as unknown as ResultsByCategory;
  for (const check of rendered) {
    const list = (results[check.category] ??= []);
    const at = list.findIndex((c) => c.id === check.id);
    if (at >= 0) list[at] = check;
    else list.push(check);
  }
  return { ...raw, results };
}

/**
 * Run the document checks over the rendered HTML: in the check worker pool when the options
 * have one (the service always does; its CPU budget applies), else on this thread.
 */
export async function renderedDocumentChecks(
  page: RenderedPage,
  options: AnalyzerOptions,
  signal?: AbortSignal,
): Promise<RenderedCheckResult[]> {
  const size = Buffer.byteLength(page.html);
  const input: CheckInput = {
    url: page.finalUrl,
    requestedUrl: page.finalUrl,
    html: page.html,
    status: page.status,
    headers: {},
    httpVersion: '1.1',
    timings: { ttfbMs: 0, totalMs: 0 },
    transferredBytes: size,
    decodedBytes: size,
    thresholds: options.thresholds,
    userAgent: options.userAgent,
  };
  const results = options.checkPool
    ? await options.checkPool.run(input, options.checkBudgetMs, signal)
    : runPageChecks(input);
  return Object.values(results)
    .flat()
    .filter((c) => renderedCheckIds.has(c.id))
    .map((c) => ({ ...c, rendered: true as const }));
}

/** Raw analyses plus optional rendering, sharing one browser. */
export class RenderingAnalyzer {
  readonly settings: RenderSettings;
  readonly pool: BrowserPool;
  /** Renders wait here, in turn per tenant, for one of the browser's contexts. */
  readonly renders: FairPool;

  constructor(settings: RenderSettings) {
    this.settings = settings;
    this.renders = new FairPool({
      concurrency: settings.contexts,
      maxQueue: 1000,
      perTenantConcurrency: Math.min(settings.perTenantRenders ?? 1, settings.contexts),
      perTenantQueue: 100,
    });
    this.pool = new BrowserPool({
      executablePath: settings.chromiumPath,
      contexts: settings.contexts,
      maxHeapMb: settings.maxHeapMb,
      acquireTimeoutMs: settings.timeoutMs * 3,
      memoryLimitBytes: settings.memoryLimitBytes,
      sandboxUser: settings.sandboxUser,
      startTimeoutMs: settings.startTimeoutMs,
      warn: settings.warn,
    });
  }

  /** Whether this analysis renders: `requested` (render=0|1) wins, else the mode decides. */
  wants(raw: AnalysisResult, requested?: boolean): boolean {
    if (this.settings.mode === 'never') return false; // no browser on this machine
    if (requested !== undefined) return requested;
    return this.settings.mode === 'always' || looksClientRendered(raw);
  }

  /** Render `url` once more after a browser crash; the crash of one render never fails the analysis. */
  async #render(
    url: string,
    options: AnalyzerOptions,
    bounds: { waits?: AbortSignal; signal?: AbortSignal },
  ): Promise<RenderedPage> {
    const limits = {
      timeoutMs: this.settings.timeoutMs,
      maxBytes: this.settings.maxBytes,
      settleMs: this.settings.settleMs,
      userAgent: this.settings.userAgent,
      maxDocumentChars: this.settings.maxDocumentChars,
    };
    try {
      return await renderPage(this.pool, url, options, limits, bounds);
    } catch (err) {
      if (!(err instanceof BrowserCrashedError)) throw err;
      return renderPage(this.pool, url, options, limits, bounds);
    }
  }

  /**
   * Analyze `url`: raw first (its failures reject as {@link analyzeUrl}'s do), then render
   * when wanted. A page that fails to render keeps its raw results and says why in `rendering`.
   * Every wait is bounded by the analysis' deadline (`options.totalTimeoutMs` from its start):
   * the render's turn, the browser's start and a context (a render that has its context then
   * has its own `timeoutMs`). When `signal` aborts, the analysis ends at once with its reason,
   * whatever it was waiting for.
   */
  async analyze(
    url: TargetUrl,
    options: AnalyzerOptions,
    requested?: boolean,
    signal?: AbortSignal,
    tenant = '',
  ): Promise<RenderedAnalysis> {
    const startedAt = performance.now();
    const raw = await analyzeUrl(url, options, signal);
    if (!this.wants(raw, requested)) return { ...raw, rendering: { status: 'skipped' } };
    signal?.throwIfAborted();
    let page: RenderedPage;
    let documentChecks: RenderedCheckResult[];
    try {
      const waits = deadlineSignal(
        Math.max(1, options.totalTimeoutMs - (performance.now() - startedAt)),
        () =>
          new RenderBusyError(
            `The browser was not ready to render the page within the analysis' deadline (${options.totalTimeoutMs} ms).`,
          ),
        signal,
      );
      try {
        page = await this.renders.run(
          tenant,
          () => this.#render(raw.finalUrl, options, { waits: waits.signal, signal }),
          waits.signal,
        );
      } finally {
        waits.clear();
      }
      documentChecks = await renderedDocumentChecks(page, options, signal);
    } catch (err) {
      signal?.throwIfAborted();
      if (err instanceof AnalyzeError) {
        const failed: RenderedCheckResult = {
          id: 'rendered_page',
          category: 'miscellaneous',
          importance: 'medium',
          passed: false,
          value: err.reason,
          details: [err.message],
          rendered: true,
        };
        return {
          ...mergeRendered(raw, [failed]),
          rendering: { status: 'failed', reason: err.message },
        };
      }
      const reason =
        err instanceof RenderBusyError ||
        err instanceof BrowserCrashedError ||
        err instanceof SaturatedError ||
        err instanceof BrowserUnavailableError
          ? err.message
          : 'The browser could not render the page.';
      return { ...raw, rendering: { status: 'failed', reason } };
    }
    const a11y = accessibilityChecks(page.accessibility);
    const rendered = [...documentChecks, ...labChecks(page, options.thresholds.maxRequests), ...a11y];
    if (page.timedOut) {
      rendered.push({
        id: 'rendered_page',
        category: 'miscellaneous',
        importance: 'medium',
        passed: false,
        value: 'timeout',
        details: [`The page did not finish loading within ${this.settings.timeoutMs} ms; measurements are partial.`],
        rendered: true,
      });
    }
    return {
      ...mergeRendered(raw, rendered),
      rendering: {
        status: 'rendered',
        lab: labSummary(page),
        accessibility: {
          score: accessibilityScore(a11y).score,
          elapsedMs: Math.round(page.accessibility.elapsedMs),
          ...(page.accessibility.error ? { error: page.accessibility.error } : {}),
        },
        elapsedMs: Math.round(page.elapsedMs),
      },
    };
  }

  /** Close the shared browser. */
  close(): Promise<void> {
    return this.pool.close();
  }
}

/** The configuration fields {@link renderingAnalyzerFrom} reads. */
type RenderConfig = Parameters<typeof renderSettingsFrom>[0];

/** A rendering analyzer for `config`, or undefined when rendering is off (`never`). */
export function renderingAnalyzerFrom(
  config: RenderConfig,
  warn?: (message: string) => void,
): RenderingAnalyzer | undefined {
  const settings = { ...renderSettingsFrom(config), warn };
  return settings.mode === 'never' ? undefined : new RenderingAnalyzer(settings);
}
