/** The catalogue of checks: public interface. */
export {
  catalogueEntry,
  checkCatalogue,
  defaultLocale,
  locales,
  type CatalogueEntry,
  type Locale,
} from './catalogue.ts';
export type { NumberUnit, ValueFormat, ValueUnit } from './formats.ts';
export type { Counted } from './texts.ts';
