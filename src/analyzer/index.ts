/** The website analyzer: public interface. */
export { analyzeUrl, type AnalysisResult } from './analyze.ts';
export { AnalyzeError, type AnalyzeFailure } from './errors.ts';
export {
  defaultAnalyzerOptions,
  defaultThresholds,
  type AnalyzerOptions,
  type AnalyzerOptionsOverrides,
  type LookupFunction,
} from './options.ts';
export { FairPool, SaturatedError, TenantLimitError } from './pool.ts';
export { CheckPool } from './check-pool.ts';
export type { CheckCategory, CheckResult, Importance, ResultsByCategory } from './checks/types.ts';
export { gradeOf } from './scoring.ts';
