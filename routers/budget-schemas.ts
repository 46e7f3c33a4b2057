/** The output shapes of budgets and regressions, shared by the reports and audits routers. */
import { z } from 'zod';

const level = z.enum(['warn', 'error']);

export const assertionResult = z.object({
  url: z.string(),
  key: z.string(),
  check: z.string().nullable(),
  level,
  name: z.enum(['minScore', 'maxNumericValue', 'maxLength']),
  status: z.enum(['passed', 'failed', 'not_measured']),
  operator: z.enum(['>=', '<=']),
  expected: z.number(),
  actual: z.number().nullable(),
  values: z.array(z.number()),
  aggregationMethod: z.enum(['median', 'optimistic', 'pessimistic', 'median-run']),
  message: z.string().optional(),
});

export const metricComparison = z.object({
  metric: z.enum(['fcp', 'lcp', 'tbt', 'cls', 'score', 'bytes']),
  baseline_median: z.number(),
  median: z.number(),
  change: z.number(),
  p_value: z.number(),
  runs: z.number().int(),
  baseline_runs: z.number().int(),
  regressed: z.boolean(),
});

export const assertionOutcome = z.object({
  report_id: z.number().int(),
  url: z.string(),
  assertions: z.array(assertionResult),
  uncovered: z.array(z.string()),
  regression: z
    .object({ baseline_report_id: z.number().int(), metrics: z.array(metricComparison), regressed: z.boolean() })
    .nullable(),
});
