/**
 * A stored report prepared for reading: each check with its catalogue entry and the points
 * its failure costs, grouped by section, plus the counts per section.
 */
import type { Importance } from '../../src/analyzer/index.ts';
import { catalogueEntry, type CatalogueEntry } from '../../src/analyzer/checks/catalogue/index.ts';
import { byCategory, type ReportResults } from '../../src/reports/results.ts';
import { humanize } from './format-value.ts';

/** One check as the page shows it. */
export interface CheckView {
  id: string;
  /** The catalogue's words; absent for an id the catalogue does not know (an older report). */
  entry?: CatalogueEntry;
  title: string;
  category: string;
  importance: Importance;
  passed: boolean;
  value: unknown;
  details: unknown[];
  rendered: boolean;
  /** Score points this check is worth (what failing it costs), 0 when it is not scored. */
  points: number;
}

/** A report section and its checks. */
export interface SectionView {
  category: string;
  title: string;
  checks: CheckView[];
  passed: number;
  failed: number;
}

/** Section headings. */
export const sectionTitles: Record<string, string> = {
  seo: 'SEO',
  performance: 'Performance',
  security: 'Security',
  miscellaneous: 'Miscellaneous',
};

/** The checks of `results` by section, in report order, with what each is worth under `weights`. */
export function reportView(results: ReportResults | null, weights: Record<Importance, number>): SectionView[] {
  const sections = byCategory(results ?? {});
  const total = sections.flatMap(([, list]) => list).reduce((sum, c) => sum + (weights[c.importance] ?? 0), 0);
  return sections.map(([category, list]) => {
    const checks = list.map((c): CheckView => {
      const entry = catalogueEntry(c.id);
      const weight = weights[c.importance] ?? 0;
      return {
        id: c.id,
        entry,
        title: entry?.title ?? humanize(c.id),
        category,
        importance: c.importance,
        passed: c.passed,
        value: c.value,
        details: Array.isArray(c.details) ? c.details : [],
        rendered: c.rendered === true,
        points: total > 0 ? (100 * weight) / total : 0,
      };
    });
    return {
      category,
      title: sectionTitles[category] ?? humanize(category),
      checks,
      passed: checks.filter((c) => c.passed).length,
      failed: checks.filter((c) => !c.passed).length,
    };
  });
}

/** Failed checks, those that cost the most points first (report order among equals). */
export function failuresByCost(sections: SectionView[]): CheckView[] {
  const failed = sections.flatMap((s) => s.checks).filter((c) => !c.passed);
  return failed
    .map((c, i) => ({ c, i }))
    .sort((a, b) => b.c.points - a.c.points || a.i - b.i)
    .map(({ c }) => c);
}
