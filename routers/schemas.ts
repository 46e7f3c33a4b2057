import { z } from 'zod';

/**
 * Shared input and output schemas of the REST routes. Query strings and form bodies carry
 * strings, typed clients send numbers: enumerated parameters accept both.
 */
export function oneOf<const T extends readonly [string, ...string[]]>(name: string, values: T) {
  return z.preprocess(
    (v) => (typeof v === 'number' ? String(v) : v),
    z.enum(values, { error: () => `The ${name} must be one of: ${values.join(', ')}.` }),
  );
}

export const perPage = oneOf('per_page', ['10', '25', '50', '100']).default('100').transform(Number);
export const sortDirection = oneOf('sort', ['desc', 'asc']).default('desc');
/** The highest page a list serves; the message of every bad `page` names it. */
const MAX_PAGE = 1_000_000;
const pageMessage = `The page must be a whole number from 1 to ${MAX_PAGE.toLocaleString('en-US')}.`;
export const pageNumber = z.coerce
  .number({ error: pageMessage })
  .int({ error: pageMessage })
  .min(1, { error: pageMessage })
  .max(MAX_PAGE, { error: pageMessage })
  .default(1);
export const searchTerm = z.string().trim().max(200).optional();

export const pageLinks = z.object({
  first: z.string(),
  last: z.string(),
  prev: z.string().nullable(),
  next: z.string().nullable(),
});

/** `meta.links` as Laravel's paginator gives it: previous, the page numbers (`...` for gaps), next. */
export const pageLinkList = z.array(z.object({ url: z.string().nullable(), label: z.string(), active: z.boolean() }));

export const pageMeta = z.object({
  current_page: z.number().int(),
  from: z.number().int().nullable(),
  last_page: z.number().int(),
  links: pageLinkList,
  path: z.string(),
  per_page: z.number().int(),
  to: z.number().int().nullable(),
  total: z.number().int(),
});

/** `status: 200` at the top level of every area A success body, as phpRank sends it. */
export const okStatus = z.literal(200);

/** A list envelope around items of `item`. */
export function paginated<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), links: pageLinks, meta: pageMeta, status: okStatus });
}

export function deleted(object: string, id: z.ZodType) {
  return z.object({ id, object: z.literal(object), deleted: z.literal(true), status: okStatus });
}

/**
 * What each kind of visitor gets from a site's gateway rules (src/gateway/simulate.ts), as the
 * gateway report and a site audit of a protected host both answer it.
 */
export const gatewayReportOutput = z.object({
  passed: z.boolean(),
  checks: z.array(
    z.object({
      persona: z.string(),
      outcome: z.enum(['pass', 'challenge', 'refuse', 'deny']),
      rule: z.string(),
      ok: z.boolean(),
    }),
  ),
});
