/**
 * Test keys equal to the ones Cloudflare Turnstile, Google reCAPTCHA and hCaptcha publish,
 * so pages, servers and test suites written against them work unchanged. Test sitekeys work
 * on any origin; v1 challenges made with them have the fixed answer `TEXT` (TEST_ANSWER).
 *
 * | sitekey                                    | behaviour                                        |
 * |--------------------------------------------|--------------------------------------------------|
 * | 1x00000000000000000000AA                   | passes: v2 at once, v3 scores 0.9                |
 * | 1x00000000000000000000BB                   | passes, invisible (the Turnstile script runs it as our invisible widget) |
 * | 2x00000000000000000000AB                   | blocks: v1/v2 never issue a token, v3 scores 0.0 |
 * | 2x00000000000000000000BB                   | blocks, invisible                                |
 * | 3x00000000000000000000FF                   | forces the interactive v1 challenge              |
 * | 6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI   | reCAPTCHA's test sitekey: passes                 |
 * | 10000000-ffff-ffff-ffff-000000000001       | hCaptcha's test sitekey: passes                  |
 * | 4x00000000000000000000NN (NN: 00 to 99)    | passes with the score 0.NN (v2 at once, v3, and siteverify shows it), so a site's own tests can check its threshold |
 *
 * Test secrets accept only dummy tokens: the providers' published dummy responses
 * (DUMMY_TOKENS) and the tokens our test sitekeys issue (test-only: they prove nothing).
 * Anything else, a real token included, is `invalid-input-response`.
 *
 * | secret                                       | siteverify answers                             |
 * |----------------------------------------------|------------------------------------------------|
 * | 1x0000000000000000000000000000000AA          | success for a dummy token                      |
 * | 2x0000000000000000000000000000000AA          | `invalid-input-response`                       |
 * | 3x0000000000000000000000000000000AA          | `timeout-or-duplicate` (token already spent)   |
 * | 6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe     | success for a dummy token (reCAPTCHA's)        |
 * | 0x0000000000000000000000000000000000000000   | success for a dummy token (hCaptcha's)         |
 */
export const TEST_SITEKEYS = {
  pass: '1x00000000000000000000AA',
  block: '2x00000000000000000000AB',
  interactive: '3x00000000000000000000FF',
  passInvisible: '1x00000000000000000000BB',
  blockInvisible: '2x00000000000000000000BB',
  recaptcha: '6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI',
  hcaptcha: '10000000-ffff-ffff-ffff-000000000001',
} as const;

export const TEST_SECRETS = {
  pass: '1x0000000000000000000000000000000AA',
  fail: '2x0000000000000000000000000000000AA',
  spent: '3x0000000000000000000000000000000AA',
  recaptcha: '6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe',
  hcaptcha: '0x0000000000000000000000000000000000000000',
} as const;

/** The providers' published dummy responses (Turnstile's, hCaptcha's test passcode). */
export const DUMMY_TOKENS = {
  turnstile: 'XXXX.DUMMY.TOKEN.XXXX',
  hcaptcha: '10000000-aaaa-bbbb-cccc-000000000001',
} as const;

/** The answer of every v1 challenge created with a test sitekey. */
export const TEST_ANSWER = 'TEXT';

/** How a test sitekey behaves in the challenge flows. */
export type TestSitekeyKind = 'pass' | 'block' | 'interactive';

const sitekeyKinds: Record<string, TestSitekeyKind> = {
  [TEST_SITEKEYS.pass]: 'pass',
  [TEST_SITEKEYS.block]: 'block',
  [TEST_SITEKEYS.interactive]: 'interactive',
  [TEST_SITEKEYS.passInvisible]: 'pass',
  [TEST_SITEKEYS.blockInvisible]: 'block',
  [TEST_SITEKEYS.recaptcha]: 'pass',
  [TEST_SITEKEYS.hcaptcha]: 'pass',
};

/** Test sitekeys that pass with a chosen score: `4x`, twenty zeros, and the score's two digits. */
const scoredSitekey = /^4x0{20}(\d\d)$/;

export function testSitekeyKind(sitekey: string): TestSitekeyKind | null {
  if (scoredSitekey.test(sitekey)) return 'pass';
  return Object.hasOwn(sitekeyKinds, sitekey) ? sitekeyKinds[sitekey] : null;
}

/** The score a passing test sitekey's tokens carry: its chosen one, else 0.9. */
export function testPassScore(sitekey: string): number {
  const chosen = scoredSitekey.exec(sitekey);
  return chosen ? Number(chosen[1]) / 100 : 0.9;
}

export function isTestSitekey(sitekey: string): boolean {
  return testSitekeyKind(sitekey) !== null;
}

export type TestSecretKind = 'pass' | 'fail' | 'spent';

const secretKinds: Record<string, TestSecretKind> = {
  [TEST_SECRETS.pass]: 'pass',
  [TEST_SECRETS.fail]: 'fail',
  [TEST_SECRETS.spent]: 'spent',
  [TEST_SECRETS.recaptcha]: 'pass',
  [TEST_SECRETS.hcaptcha]: 'pass',
};

export function testSecretKind(secret: string): TestSecretKind | null {
  return Object.hasOwn(secretKinds, secret) ? secretKinds[secret] : null;
}

export function isDummyToken(response: string): boolean {
  return response === DUMMY_TOKENS.turnstile || response === DUMMY_TOKENS.hcaptcha;
}
