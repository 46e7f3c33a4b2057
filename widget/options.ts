/** Options of a rendered widget, the hidden fields they name, callbacks and token lifetime. */
import type { Strings } from './strings.ts';
import { PROVIDERS } from '../shared/providers.ts';

export type Mode = 'managed' | 'explicit' | 'invisible';
type Callback<A extends unknown[]> = string | ((...args: A) => void);

/** Options of `auditcaptcha.render` (implicit rendering reads the same from data-* attributes). */
export interface RenderOptions {
  sitekey: string;
  /** managed (default): the server decides; explicit: the image challenge; invisible: a v3 score token. */
  mode?: Mode;
  action?: string;
  cdata?: string;
  theme?: 'auto' | 'light' | 'dark';
  /** A language registered with addTranslation, or `auto` (the browser's). */
  language?: string;
  strings?: Partial<Strings>;
  /** Extra hidden fields holding the token, by provider name (shared/providers.ts): `turnstile`, `recaptcha`, ... */
  responseFieldAliases?: string | string[];
  /** What happens when a token expires: auto (managed, invisible: fetch a new one) or manual. */
  refreshExpired?: 'auto' | 'manual';
  /** Functions, or names of global functions (as data-* attributes give them). */
  callback?: Callback<[token: string]>;
  expiredCallback?: Callback<[]>;
  errorCallback?: Callback<[code: string]>;
}

/** A provider's name to its hidden field (shared/providers.ts). */
const aliasFields: Record<string, string> = Object.fromEntries(PROVIDERS.map((p) => [p.name, p.responseField]));

/** Names of the hidden fields holding the token: `ac-response`, then the asked-for aliases. */
export function responseFields(aliases: RenderOptions['responseFieldAliases']): string[] {
  const list = typeof aliases === 'string' ? aliases.split(/[\s,]+/) : (aliases ?? []);
  return ['ac-response', ...list.map((a) => aliasFields[a.toLowerCase()]).filter((n): n is string => !!n)];
}

/** A token counts as expired this long before its expires_at (clock drift, the form's trip). */
const EXPIRY_MARGIN_MS = 10_000;
/** The service's token lifetime; used when the browser's clock disagrees with expires_at. */
const TOKEN_LIFETIME_MS = 300_000;

/** Milliseconds a token issued now may be kept before it is treated as expired. */
export function tokenLifetime(expiresAt: string, now = Date.now()): number {
  const left = Date.parse(expiresAt) - now;
  const sane = left > 2 * EXPIRY_MARGIN_MS && left <= TOKEN_LIFETIME_MS + 60_000;
  return Math.min(sane ? left : TOKEN_LIFETIME_MS, TOKEN_LIFETIME_MS) - EXPIRY_MARGIN_MS;
}

/** Calls a callback given as a function or as the name of a global one; its errors do not stop the widget. */
export function call<A extends unknown[]>(cb: Callback<A> | undefined, ...args: A): void {
  const fn = typeof cb === 'string' ? (window as unknown as Record<string, unknown>)[cb] : cb;
  if (typeof fn !== 'function') return;
  try {
    Reflect.apply(fn, undefined, args);
  } catch (err) {
    setTimeout(() => {
      throw err;
    });
  }
}
