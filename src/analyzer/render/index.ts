/** Rendering analyzer: public interface. */
export { chromiumFlags, desktopUserAgent } from './browser.ts';
export { labChecks, labCurves, logNormalScore } from './lab.ts';
export { renderPage } from './render.ts';
export { RenderingAnalyzer, renderingAnalyzerFrom, type RenderedAnalysis } from './analyzer.ts';
