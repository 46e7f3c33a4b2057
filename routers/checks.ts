import { z } from 'zod';
import { defaultLocale, locales } from '../src/analyzer/checks/catalogue/index.ts';
import { scoringWeights } from '../src/reports/analysis.ts';
import { describeCatalogue } from '../src/reports/check-catalogue.ts';
import { apiKeyProcedure, router } from './trpc.ts';
import { okStatus, oneOf } from './schemas.ts';

const numberUnit = z.enum(['milliseconds', 'bytes', 'count', 'percent', 'score', 'unitless', 'http_status']);
/** How a value (or one field of it) is shown; see docs/reports.md. */
const fieldFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('url') }),
  z.object({ type: z.literal('boolean') }),
  z.object({ type: z.literal('number'), unit: numberUnit, decimals: z.number().int().optional() }),
  z.object({ type: z.literal('metric'), unit: z.literal('milliseconds') }),
  z.object({ type: z.literal('list') }),
  z.object({ type: z.literal('counts') }),
]);
const valueFormat = z.union([
  fieldFormat,
  z.object({ type: z.literal('fields'), fields: z.record(z.string(), fieldFormat) }),
]);

const checkDescription = z.object({
  id: z.string(),
  category: z.enum(['seo', 'performance', 'security', 'miscellaneous', 'accessibility']),
  importance: z.enum(['high', 'medium', 'low']),
  weight: z.number().meta({
    description:
      'Weight in the score named by `scored_in`: the report’s with this service’s settings (0: reported, not scored), or the accessibility score’s (Lighthouse’s weight).',
  }),
  scored_in: z.enum(['report', 'accessibility']).meta({
    description:
      'report: the report’s `score` and grade; accessibility: the accessibility category’s own score, not part of the report’s.',
  }),
  source: z.enum(['page', 'rendered', 'safe-browsing']).meta({
    description:
      'page: every report; rendered: reports rendered in Chromium (render=1); safe-browsing: when the operator set a Google Safe Browsing key.',
  }),
  title: z.string(),
  description: z.string().meta({ description: 'What the check measures and why it matters.' }),
  fix: z.string().meta({ description: 'How to make a failing check pass.' }),
  unit: z.enum([...numberUnit.options, 'text', 'url', 'boolean', 'list', 'table']),
  format: valueFormat,
  counted: z
    .object({
      zero: z.string().optional(),
      one: z.string().optional(),
      two: z.string().optional(),
      few: z.string().optional(),
      many: z.string().optional(),
      other: z.string(),
    })
    .optional()
    .meta({
      description:
        'For a count: the noun counted by plural category (Intl.PluralRules; `other` is always there), e.g. {"one": "link", "other": "links"}.',
    }),
  field_labels: z
    .record(z.string(), z.string())
    .optional()
    .meta({ description: 'For a `fields` format: the label of each key of the value.' }),
  learn_more: z.string().optional(),
});

export const checksRouter = router({
  /** Our extension: the catalogue of checks, so clients can show a report's checks in words. */
  list: apiKeyProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/checks',
        summary: 'List the checks a report can contain',
        description:
          'Every check id that can appear in a report’s results, in report order, with a title, what it measures, how to fix a failure, and the unit and format of its value. Our extension; report shapes are unchanged.',
        tags: ['reports'],
      },
    })
    .input(
      z.object({
        locale: oneOf('locale', locales)
          .default(defaultLocale)
          .meta({ description: `Language of the texts (default ${defaultLocale}).` }),
      }),
    )
    .output(
      z.object({
        data: z.array(checkDescription),
        meta: z.object({ locale: z.enum(locales), locales: z.array(z.enum(locales)), total: z.number().int() }),
        status: okStatus,
      }),
    )
    .query(({ ctx, input }) => {
      const data = describeCatalogue(input.locale, scoringWeights(ctx.config));
      return { data, meta: { locale: input.locale, locales: [...locales], total: data.length }, status: 200 as const };
    }),
});
