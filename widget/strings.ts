/**
 * The widget's user-facing text. English, German, Spanish, French and Dutch are built in
 * (translations.ts); a site supplies other languages with `auditcaptcha.addTranslation(lang,
 * strings)` (or `window.auditcaptchaTranslations = {lang: {...}}` before the script loads).
 * The language is `data-language` / `options.language` when given (and not `auto`), else the
 * page's `<html lang>`, else English. `options.strings` overrides single keys.
 * `{n}` and `{s}` are placeholders. A key ending in `One` is the form of its message for a count
 * the language's plural rules call "one" (`Intl.PluralRules`: 1 in English, 0 and 1 in French).
 */
import { builtIn } from './translations.ts';

export const en = {
  label: 'Human verification',
  verify: 'Verify you are human',
  verifying: 'Verifying…',
  working: 'Verifying… {n}%',
  checking: 'Checking your browser; this can take a few seconds.',
  progress: 'Verification progress',
  verified: 'Verified',
  success: 'Success! You are verified.',
  prompt: 'Type the characters shown in the image',
  imageAlt: 'Distorted characters to type. If you cannot read them, choose New image.',
  /** The alt text when the way through without the image is offered. */
  imageAltOther: 'Distorted characters to type. If you cannot read them, choose New image or verify without the image.',
  loading: 'Loading the challenge…',
  submit: 'Check',
  refresh: 'New image',
  empty: 'Type the characters from the image first.',
  wrong: 'That was not right. Attempts left: {n}. Try again or choose New image.',
  spent: 'Too many wrong answers. Here is a new challenge.',
  challengeExpired: 'The challenge expired. Here is a new one.',
  expired: 'Verification expired. Verify again.',
  /** A managed widget whose token expired fetches a new one by itself. */
  renewing: 'Verification expired. Verifying again…',
  again: 'Verify again',
  rateLimited: 'Too many attempts. Try again in {s} seconds.',
  rateLimitedOne: 'Too many attempts. Try again in {s} second.',
  retryNow: 'You can try again now.',
  forbidden: 'This website is not allowed to use this verification service.',
  network: 'Could not reach the verification service. Check your connection and try again.',
  failed: 'Verification failed. Try again.',
  retry: 'Try again',
  needed: 'Complete the human verification first.',
  noImage: 'Cannot see the image? Verify without it',
  noImageWorking: 'Verifying without the image. Your device is doing a longer check; this can take several seconds.',
} as const;

export type Strings = Record<keyof typeof en, string>;

/** The built-in languages, each with every key of English's (a missing one fails here). */
const builtInStrings: Record<string, Strings> = builtIn;
const translations: Record<string, Partial<Strings>> = { ...builtInStrings };

/** Registers (or extends) the strings of a language, e.g. `fr` or `pt-BR`. */
export function addTranslation(language: string, strings: Partial<Strings>): void {
  const key = language.toLowerCase();
  translations[key] = { ...translations[key], ...strings };
}

/** The widget's strings and the language they are in (its `lang` attribute). */
export interface Language {
  strings: Strings;
  /** The asked-for tag when a translation of it (or of its base language) exists, else `en`. */
  lang: string;
}

/**
 * The language asked for (`auto` or nothing: the page's `<html lang>`), its strings over
 * English: the base language's (`pt`), then the exact one's (`pt-br`), then the overrides.
 */
export function stringsFor(language: string | undefined, overrides?: Partial<Strings>): Language {
  const asked = (!language || language === 'auto' ? document.documentElement.lang : language).trim();
  const tag = asked.toLowerCase().replace(/_/g, '-');
  const base = translations[tag.split('-')[0]];
  const exact = translations[tag];
  const strings: Strings = { ...en, ...base, ...exact, ...overrides };
  // A language that gives only the plural message keeps it for one too, rather than English's.
  const own = { ...base, ...exact, ...overrides };
  if (own.rateLimited && !own.rateLimitedOne) strings.rateLimitedOne = own.rateLimited;
  return { strings, lang: base || exact ? asked.replace(/_/g, '-') : 'en' };
}

/** "Try again in {s} seconds" for `seconds`, in the form the language's plural rules pick. */
export function rateLimitedText(language: Language, seconds: number): string {
  const one = new Intl.PluralRules(language.lang).select(seconds) === 'one';
  return fill(one ? language.strings.rateLimitedOne : language.strings.rateLimited, { s: seconds });
}

/** Fills `{name}` placeholders. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in values ? String(values[key]) : whole));
}
