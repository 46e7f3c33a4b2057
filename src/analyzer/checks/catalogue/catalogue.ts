/**
 * The catalogue of checks: for every check (definitions.ts) its identity, its words in one
 * language (title, description, fix) and the unit and format of its value. One source for the
 * share page and `GET /api/v1/checks`.
 */
import { checkDefinitions, describedCheck } from '../definitions.ts';
import type { CheckIdentity, DescribedCheck } from '../types.ts';
import type { ValueSpec } from './formats.ts';
import { locales, type CheckTexts, type Locale } from './texts.ts';

export { locales, type Locale };

/** The language used when none is asked for. */
export const defaultLocale: Locale = locales[0];

/** One check fully described in one language. */
export interface CatalogueEntry extends CheckIdentity, CheckTexts, ValueSpec {}

function entry(check: DescribedCheck, locale: Locale): CatalogueEntry {
  const { id, category, importance, source } = check;
  return { id, category, importance, source, ...check.texts[locale], ...check.value };
}

/** The entry of check `id` in `locale`; undefined when the service reports no such check. */
export function catalogueEntry(id: string, locale: Locale = defaultLocale): CatalogueEntry | undefined {
  const check = describedCheck(id);
  return check && entry(check, locale);
}

/** Every check in report order, described in `locale`. */
export function checkCatalogue(locale: Locale = defaultLocale): CatalogueEntry[] {
  return checkDefinitions.map((check) => entry(check, locale));
}
