/**
 * The shape of a check's words in one language, and the languages. Each check carries its
 * words in every language (a page check in its own module, checks/page/; the tables of gsb,
 * lab and accessibility checks beside them).
 */

/** The languages of the catalogue, the default first. A new language is one more entry here. */
export const locales = ['en'] as const;

/** A language of the catalogue. */
export type Locale = (typeof locales)[number];

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
