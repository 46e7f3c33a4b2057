import { PROVIDERS, type ProviderTestKeys, type TestSitekey } from '../../shared/providers.ts';

/**
 * Test keys: the ones Cloudflare Turnstile, Google reCAPTCHA and hCaptcha publish, each in its
 * provider's entry (shared/providers.ts), so pages, servers and test suites written against
 * them work unchanged; and our own `4x` sitekeys that pass with a chosen score. Test sitekeys
 * work on any origin; v1 challenges made with them have the fixed answer {@link TEST_ANSWER}.
 * Test secrets accept only dummy tokens: the providers' published dummy responses and the
 * tokens our test sitekeys issue (test-only: they prove nothing). Anything else, a real token
 * included, is `invalid-input-response`. docs/challenges.md ("Test keys") lists them all.
 */

const published: readonly ProviderTestKeys[] = PROVIDERS.map((p) => p.testKeys);
const sitekeys: Readonly<Record<string, TestSitekey>> = Object.fromEntries(
  published.flatMap((k) => Object.entries(k.sitekeys)),
);
const secrets: Readonly<Record<string, TestSecretKind>> = Object.fromEntries(
  published.flatMap((k) => Object.entries(k.secrets)),
);
const dummyTokens = new Set(published.flatMap((k) => (k.dummyToken ? [k.dummyToken] : [])));

/** The answer of every v1 challenge created with a test sitekey. */
export const TEST_ANSWER = 'TEXT';

/** How a test sitekey behaves in the challenge flows. */
export type TestSitekeyKind = TestSitekey['kind'];

/** Test sitekeys that pass with a chosen score: `4x`, twenty zeros, and the score's two digits. */
const scoredSitekey = /^4x0{20}(\d\d)$/;

export function testSitekeyKind(sitekey: string): TestSitekeyKind | null {
  if (scoredSitekey.test(sitekey)) return 'pass';
  return Object.hasOwn(sitekeys, sitekey) ? sitekeys[sitekey].kind : null;
}

/** The score a passing test sitekey's tokens carry: its chosen one, else 0.9. */
export function testPassScore(sitekey: string): number {
  const chosen = scoredSitekey.exec(sitekey);
  return chosen ? Number(chosen[1]) / 100 : 0.9;
}

export function isTestSitekey(sitekey: string): boolean {
  return testSitekeyKind(sitekey) !== null;
}

export type TestSecretKind = ProviderTestKeys['secrets'][string];

export function testSecretKind(secret: string): TestSecretKind | null {
  return Object.hasOwn(secrets, secret) ? secrets[secret] : null;
}

export function isDummyToken(response: string): boolean {
  return dummyTokens.has(response);
}
