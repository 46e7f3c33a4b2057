/**
 * The catalogue of checks as the API serves it (`GET /api/v1/checks`): every check the
 * service can report, in report order, with its words in one language, the unit and format
 * of its value and the weight it is scored with here.
 */
import type { Importance } from '../analyzer/index.ts';
import { accessibilityRule } from '../analyzer/checks/accessibility-rules.ts';
import {
  checkCatalogue,
  type CatalogueEntry,
  type Counted,
  type Locale,
  type ValueFormat,
  type ValueUnit,
} from '../analyzer/checks/catalogue/index.ts';

/** One check as `GET /api/v1/checks` lists it (snake_case keys, as the report API). */
export interface CheckDescription {
  id: string;
  category: CatalogueEntry['category'];
  importance: Importance;
  /**
   * Points of weight in the score named by `scored_in`: the report's (ANALYZER_WEIGHTS; 0:
   * reported, not scored) or, for accessibility checks, the accessibility score (Lighthouse's).
   */
  weight: number;
  scored_in: 'report' | 'accessibility';
  source: CatalogueEntry['source'];
  title: string;
  description: string;
  fix: string;
  unit: ValueUnit;
  format: ValueFormat;
  counted?: Counted;
  field_labels?: Record<string, string>;
  learn_more?: string;
}

function describe(entry: CatalogueEntry, weights: Record<Importance, number>): CheckDescription {
  return {
    id: entry.id,
    category: entry.category,
    importance: entry.importance,
    weight: accessibilityRule(entry.id)?.weight ?? weights[entry.importance],
    scored_in: accessibilityRule(entry.id) ? 'accessibility' : 'report',
    source: entry.source,
    title: entry.title,
    description: entry.description,
    fix: entry.fix,
    unit: entry.unit,
    format: entry.format,
    ...(entry.counted ? { counted: entry.counted } : {}),
    ...(entry.fields ? { field_labels: entry.fields } : {}),
    ...(entry.learnMore ? { learn_more: entry.learnMore } : {}),
  };
}

/** Every check described in `locale`, weighed with `weights`. */
export function describeCatalogue(locale: Locale, weights: Record<Importance, number>): CheckDescription[] {
  return checkCatalogue(locale).map((entry) => describe(entry, weights));
}
