/** Rendering analyzer: public interface. */
export { BrowserPool, BrowserCrashedError, RenderBusyError, chromiumFlags, type BrowserPoolSettings } from './browser.ts';
export { labChecks, labSummary, logNormalScore, labCurves, labWeights, type LabSummary, type RenderedCheckResult } from './lab.ts';
export { startGuardedProxy, type BlockedRequest, type GuardedProxy } from './proxy.ts';
export { renderPage, type RenderedPage, type RenderLimits } from './render.ts';
export {
  RenderingAnalyzer,
  looksClientRendered,
  mergeRendered,
  renderedCheckIds,
  type RenderMode,
  type RenderSettings,
  type RenderedAnalysis,
  type RenderingInfo,
} from './analyzer.ts';
export { renderSettingsFrom, renderingAnalyzerFrom } from './settings.ts';
