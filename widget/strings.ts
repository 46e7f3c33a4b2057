/**
 * The widget's user-facing text. English is built in; a site supplies other languages with
 * `auditcaptcha.addTranslation(lang, strings)` (or `window.auditcaptchaTranslations = {lang:
 * {...}}` before the script loads) and picks one with `data-language` / `options.language`
 * (`auto`, the default, follows the browser). `options.strings` overrides single keys.
 * `{n}` and `{s}` are placeholders.
 */
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
  loading: 'Loading the challenge…',
  submit: 'Check',
  refresh: 'New image',
  empty: 'Type the characters from the image first.',
  wrong: 'That was not right. Attempts left: {n}. Try again or choose New image.',
  spent: 'Too many wrong answers. Here is a new challenge.',
  challengeExpired: 'The challenge expired. Here is a new one.',
  expired: 'Verification expired. Verify again.',
  again: 'Verify again',
  rateLimited: 'Too many attempts. Try again in {s} seconds.',
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

const translations: Record<string, Partial<Strings>> = {};

/** Registers (or extends) the strings of a language, e.g. `fr` or `pt-BR`. */
export function addTranslation(language: string, strings: Partial<Strings>): void {
  const key = language.toLowerCase();
  translations[key] = { ...translations[key], ...strings };
}

/** English, then the base language (`pt`), then the exact one (`pt-br`), then overrides. */
export function stringsFor(language: string | undefined, overrides?: Partial<Strings>): Strings {
  const lang = (!language || language === 'auto' ? navigator.language || 'en' : language).toLowerCase();
  return { ...en, ...translations[lang.split('-')[0]], ...translations[lang], ...overrides };
}

/** Fills `{name}` placeholders. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in values ? String(values[key]) : whole));
}
