/**
 * Rendering settings from the service configuration. Types only from the analyzer: the
 * challenges' engine reference reads these settings at start, and a value import here would load
 * the analysis engine and playwright-core into every process before its first report
 * (renderingAnalyzerFrom, in analyzer.ts, builds the analyzer when a report needs it).
 */
import { existsSync } from 'node:fs';
import type { Config } from '../../config.ts';

/** When pages are rendered. */
export type RenderMode = 'never' | 'auto' | 'always';

/** Rendering configuration (from ANALYZER_RENDER*, ANALYZER_CHROMIUM_PATH). */
export interface RenderSettings {
  mode: RenderMode;
  chromiumPath: string;
  /** Browser contexts rendering at once. */
  contexts: number;
  /** Per-page render time, ms; a render's wait for its turn is bounded by it too. */
  timeoutMs: number;
  /**
   * Longest the browser may take to start, ms (default 30 s); past it rendering is off for the
   * process, said once through `warn`, and renders fail as without Chromium.
   */
  startTimeoutMs?: number;
  /** V8 heap limit per renderer, MiB. */
  maxHeapMb: number;
  /** Most bytes one page may load, document and subresources. */
  maxBytes: number;
  /** Longest wait after load for the page to be quiet (ANALYZER_RENDER_MAX_WAIT_MS), ms. */
  settleMs: number;
  /** User-Agent of renders (ANALYZER_RENDER_USER_AGENT); unset, desktop Chrome's. */
  userAgent?: string;
  /** Renders one tenant (API key's account) may have running; the rest wait their turn. Default 1. */
  perTenantRenders?: number;
  /** Memory of the whole browser, bytes (a cgroup); see BrowserPoolSettings. */
  memoryLimitBytes?: number;
  /** The user Chromium runs as when the service is root. Default `nobody`. */
  sandboxUser?: string;
  /** Longest rendered document taken back, characters. Default 5 MiB. */
  maxDocumentChars?: number;
  /** Told once when the browser cannot be bounded or sandboxed. */
  warn?: (message: string) => void;
}

/** The longest wait for Chromium's start, whatever ANALYZER_TIMEOUT_MS says, ms. */
const browserStartLimitMs = 10_000;

/** The render settings of `config`: ANALYZER_RENDER unset means auto when Chromium exists, else never. */
export function renderSettingsFrom(
  config: Pick<
    Config,
    | 'ANALYZER_RENDER'
    | 'ANALYZER_CHROMIUM_PATH'
    | 'ANALYZER_RENDER_CONTEXTS'
    | 'ANALYZER_RENDER_TIMEOUT_MS'
    | 'ANALYZER_RENDER_MAX_WAIT_MS'
    | 'ANALYZER_RENDER_USER_AGENT'
    | 'ANALYZER_RENDER_MAX_HEAP_MB'
    | 'ANALYZER_RENDER_MAX_BYTES'
    | 'ANALYZER_KEY_RENDERS'
    | 'ANALYZER_RENDER_MEMORY_MB'
    | 'ANALYZER_CHROMIUM_USER'
    | 'ANALYZER_MAX_BYTES'
    | 'ANALYZER_TIMEOUT_MS'
  >,
): RenderSettings {
  const found = existsSync(config.ANALYZER_CHROMIUM_PATH);
  const mode: RenderMode = config.ANALYZER_RENDER ?? (found ? 'auto' : 'never');
  return {
    mode,
    chromiumPath: config.ANALYZER_CHROMIUM_PATH,
    contexts: config.ANALYZER_RENDER_CONTEXTS,
    timeoutMs: config.ANALYZER_RENDER_TIMEOUT_MS,
    maxHeapMb: config.ANALYZER_RENDER_MAX_HEAP_MB,
    maxBytes: config.ANALYZER_RENDER_MAX_BYTES,
    settleMs: config.ANALYZER_RENDER_MAX_WAIT_MS,
    userAgent: config.ANALYZER_RENDER_USER_AGENT,
    perTenantRenders: config.ANALYZER_KEY_RENDERS,
    memoryLimitBytes: config.ANALYZER_RENDER_MEMORY_MB * 1024 * 1024,
    sandboxUser: config.ANALYZER_CHROMIUM_USER,
    maxDocumentChars: config.ANALYZER_MAX_BYTES,
    // A browser that has not started by the analysis' deadline (at most 10 s) never will:
    // rendering goes off for the process rather than hold every analysis that asks for it.
    startTimeoutMs: Math.min(config.ANALYZER_TIMEOUT_MS, browserStartLimitMs),
  };
}
