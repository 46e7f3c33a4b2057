/** Rendering analyzer: public interface. */
export { renderingAnalyzerFrom } from './analyzer.ts';
