/** The website analyzer: public interface. */
export { analyzeUrl, type AnalysisResult } from './analyze.ts';
export type { TargetUrl } from './address-guard.ts';
export type { AnalyzerOptions } from './options.ts';
export { CheckPool } from './check-pool.ts';
export type { CheckCategory, CheckResult, Importance, ResultsByCategory } from './checks/types.ts';
