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

/** How one of a provider's published test sitekeys behaves (src/captcha/test-keys.ts). */
export interface TestSitekey {
  /** Its challenges pass at once, never issue a token, or always ask the interactive challenge. */
  kind: 'pass' | 'block' | 'interactive';
  /** The provider's script runs it as an invisible widget whatever the page asks. */
  invisible?: boolean;
}

/**
 * The test keys a provider publishes, which work here as they do there, so a site's own test
 * suite keeps passing after the switch. Test secrets accept only dummy tokens: the providers'
 * published dummy responses and the tokens test sitekeys issue.
 */
export interface ProviderTestKeys {
  sitekeys: Readonly<Record<string, TestSitekey>>;
  /** Secret to what siteverify answers for a dummy token: success, `invalid-input-response`, or spent. */
  secrets: Readonly<Record<string, 'pass' | 'fail' | 'spent'>>;
  /** Its published dummy response, if it has one. */
  dummyToken?: string;
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
  testKeys: ProviderTestKeys;
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
    testKeys: {
      sitekeys: {
        '1x00000000000000000000AA': { kind: 'pass' },
        '1x00000000000000000000BB': { kind: 'pass', invisible: true },
        '2x00000000000000000000AB': { kind: 'block' },
        '2x00000000000000000000BB': { kind: 'block', invisible: true },
        '3x00000000000000000000FF': { kind: 'interactive' },
      },
      secrets: {
        '1x0000000000000000000000000000000AA': 'pass',
        '2x0000000000000000000000000000000AA': 'fail',
        '3x0000000000000000000000000000000AA': 'spent',
      },
      dummyToken: 'XXXX.DUMMY.TOKEN.XXXX',
    },
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
    testKeys: {
      sitekeys: { '6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI': { kind: 'pass' } },
      secrets: { '6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe': 'pass' },
    },
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
    testKeys: {
      sitekeys: { '10000000-ffff-ffff-ffff-000000000001': { kind: 'pass' } },
      secrets: { '0x0000000000000000000000000000000000000000': 'pass' },
      // hCaptcha's test passcode.
      dummyToken: '10000000-aaaa-bbbb-cccc-000000000001',
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
