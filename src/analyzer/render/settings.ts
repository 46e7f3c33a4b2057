/**
 * Rendering settings from the service configuration. Types only from the analyzer: the
 * challenges' engine reference reads these settings at start, and a value import here would load
 * the analysis engine and playwright-core into every process before its first report
 * (renderingAnalyzerFrom, in analyzer.ts, builds the analyzer when a report needs it).
 */
import { existsSync } from 'node:fs';
import type { Config } from '../../config.ts';
import type { RenderMode, RenderSettings } from './analyzer.ts';

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
