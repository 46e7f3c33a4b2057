import type { AnalysisResult } from '../../src/analyzer/analyze.ts';
import type { AnalyzerOptions } from '../../src/analyzer/options.ts';
import { scoreOf, toReportResults } from '../../src/reports/results.ts';

/** The score and grade a report of `analysis` gets: the one rule, as src/reports/analysis.ts applies it. */
export function reportScoreOf(analysis: Pick<AnalysisResult, 'results'>, weights: AnalyzerOptions['weights']) {
  return scoreOf(toReportResults(analysis.results), weights);
}
