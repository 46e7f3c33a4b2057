/**
 * The shape of a check's words in one language. The languages themselves are in `en-*.ts`
 * (one module per report section) and listed in catalogue.ts.
 */
import type { CheckId } from '../definitions.ts';

/** A noun by plural category; `other` is the fallback every language has. */
export type Counted = Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };

/** A check described for people. */
export interface CheckTexts {
  /** What the check is about, as a heading ("Meta description"). */
  title: string;
  /** One or two sentences: what it measures and why that matters. */
  description: string;
  /** What to change on the page or server so the check passes. */
  fix: string;
  /**
   * For a `count` value: what is counted, by the language's plural category
   * (Intl.PluralRules; `other` always), e.g. `{one: 'link', other: 'links'}`.
   */
  counted?: Counted;
  /** For a `fields` value: the label of each key. */
  fields?: Record<string, string>;
  /** A page with more about the subject. */
  learnMore?: string;
}

/** Words for some checks (one section) in one language. */
export type SectionTexts<Id extends CheckId> = Readonly<Record<Id, CheckTexts>>;
