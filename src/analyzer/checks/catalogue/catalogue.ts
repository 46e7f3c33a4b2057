/**
 * The catalogue of checks: for every check id (definitions.ts) its words in each language
 * (title, description, fix) and the unit and format of its value (formats.ts). One source for
 * the share page and `GET /api/v1/checks`.
 */
import { checkDefinitions, checkIdentity, type CheckId, type CheckIdentity } from '../definitions.ts';
import { enAccessibility } from './en-accessibility.ts';
import { enMiscellaneous } from './en-miscellaneous.ts';
import { enPerformance } from './en-performance.ts';
import { enSecurity } from './en-security.ts';
import { enSeo } from './en-seo.ts';
import { valueSpecs, type ValueSpec } from './formats.ts';
import type { CheckTexts } from './texts.ts';

/**
 * Every language the catalogue has, each complete (a `Record` over every check id, so a
 * missing entry does not compile). A new language is one more key here.
 */
const textsByLocale = {
  en: { ...enSeo, ...enPerformance, ...enSecurity, ...enMiscellaneous, ...enAccessibility },
} as const satisfies Record<string, Readonly<Record<CheckId, CheckTexts>>>;

/** A language of the catalogue. */
export type Locale = keyof typeof textsByLocale;

/** The languages, the default first. */
export const locales = Object.keys(textsByLocale) as [Locale, ...Locale[]];

/** The language used when none is asked for. */
export const defaultLocale: Locale = 'en';

/** One check fully described in one language. */
export interface CatalogueEntry extends CheckIdentity, CheckTexts, ValueSpec {
  id: CheckId;
}

/** The entry of check `id` in `locale`. */
export function catalogueEntry(id: CheckId, locale: Locale = defaultLocale): CatalogueEntry {
  return { ...checkIdentity(id), id, ...textsByLocale[locale][id], ...valueSpecs[id] };
}

/** Every check in report order, described in `locale`. */
export function checkCatalogue(locale: Locale = defaultLocale): CatalogueEntry[] {
  return checkDefinitions.map((d) => catalogueEntry(d.id, locale));
}
