/**
 * The providers the service is a drop-in for: one entry each, and everything about a provider
 * that is not its script's code is derived from its entry. A site written against one keeps its
 * script tag, its JavaScript API, its hidden field and its siteverify call, and changes only
 * the host (and the keys), so every path, field name and answer shape here is the provider's
 * own, byte for byte.
 *
 * Data only, with no Node and no DOM: the server (routes, siteverify's answers, the OpenAPI
 * document, the bundles it serves) and the browser bundles (the drop-in scripts, the widget's
 * response field aliases) both import it. The provider's script is `widget/compat/<name>.ts`,
 * bundled into `<name>.js` (src/bundles.ts).
 */

/** Fields of our siteverify verdict that are our own extension of the Turnstile/reCAPTCHA shape. */
export type VerdictExtension = 'action' | 'cdata' | 'score' | 'kind';

/** How a provider's siteverify answer differs from ours (src/captcha/protocols.ts applies it). */
export interface AnswerShape {
  /** Our extension fields it keeps, in this order, after the fields of the common shape; the rest are dropped. */
  keeps: readonly VerdictExtension[];
  /** `v3`: it keeps them only for a v3 token with a score (else none of them). Default: always. */
  keepsFor?: 'v3';
  /** Where the score's reasons go: Turnstile's `metadata: {reasons}` object, or nowhere. */
  reasons: 'metadata' | 'dropped';
  /** Fields a successful answer adds, in its order. */
  onSuccess?: Readonly<Record<string, boolean>>;
  /** Error codes it names otherwise (ours to its own). */
  errorCodes?: Readonly<Record<string, string>>;
}

/** One path siteverify answers at in a provider's shape. */
export interface ProviderSiteverify {
  path: string;
  /** Its OpenAPI operation: `siteverify-<operation>`. */
  operation: string;
  summary: string;
}

export interface Provider {
  /**
   * Its name: the protocol of its siteverify answers, the widget's `responseFieldAliases`
   * value, its script's module (`widget/compat/<name>.ts`) and bundle (`<name>.js`).
   */
  name: string;
  /** The paths its client script (its `api.js`) is served at. */
  scripts: readonly string[];
  /** The hidden form field its widgets put the token in. */
  responseField: string;
  /** Where its siteverify is served. */
  siteverify: readonly ProviderSiteverify[];
  answer: AnswerShape;
}

/** Every provider, in the order its routes are mounted and documented. */
export const PROVIDERS = [
  {
    name: 'turnstile',
    scripts: ['/turnstile/v0/api.js'],
    responseField: 'cf-turnstile-response',
    siteverify: [
      {
        path: '/turnstile/v0/siteverify',
        operation: 'verifyTurnstile',
        summary: 'Verify a token once (Cloudflare Turnstile path and shape)',
      },
    ],
    // Our shape (Turnstile's, plus `kind` and `score`), the reasons in Turnstile's `metadata`.
    answer: { keeps: ['action', 'cdata', 'score', 'kind'], reasons: 'metadata' },
  },
  {
    name: 'recaptcha',
    scripts: ['/recaptcha/api.js', '/recaptcha/enterprise.js'],
    responseField: 'g-recaptcha-response',
    siteverify: [
      {
        path: '/recaptcha/api/siteverify',
        operation: 'verifyRecaptcha',
        summary: 'Verify a token once (Google reCAPTCHA path and shape)',
      },
    ],
    // No `cdata`, `kind` or reasons; `score` and `action` for v3 tokens only.
    answer: { keeps: ['score', 'action'], keepsFor: 'v3', reasons: 'dropped' },
  },
  {
    name: 'hcaptcha',
    scripts: ['/1/api.js'],
    responseField: 'h-captcha-response',
    siteverify: [
      { path: '/siteverify', operation: 'verifyHcaptcha', summary: 'Verify a token once (hCaptcha path and shape)' },
    ],
    // None of our fields; `credit: false`; a spent or expired token is hCaptcha's own code.
    answer: {
      keeps: [],
      reasons: 'dropped',
      onSuccess: { credit: false },
      errorCodes: { 'timeout-or-duplicate': 'invalid-or-already-seen-response' },
    },
  },
] as const satisfies readonly Provider[];

export type ProviderName = (typeof PROVIDERS)[number]['name'];

/** The provider named `name`. */
export function providerNamed(name: ProviderName): Provider {
  return PROVIDERS.find((p) => p.name === name)!;
}

/** The bundle a provider's script is built into and served as. */
export function providerBundle(provider: Pick<Provider, 'name'>): string {
  return `${provider.name}.js`;
}
