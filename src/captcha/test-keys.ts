/**
 * Test keys in the style of (and equal to) Cloudflare Turnstile's dummy keys, so code and
 * test suites written against Turnstile work unchanged. Test sitekeys work on any origin;
 * challenges created with them have the fixed answer `TEXT` (TEST_ANSWER).
 *
 * | sitekey                    | behaviour                                                    |
 * |----------------------------|--------------------------------------------------------------|
 * | 1x00000000000000000000AA   | always passes: v2 passes at once, v3 scores 0.9              |
 * | 2x00000000000000000000AB   | always blocks: v1/v2 never issue a token, v3 scores 0.0      |
 * | 3x00000000000000000000FF   | forces the interactive v1 challenge in the managed flow      |
 *
 * | secret                               | siteverify answers                              |
 * |--------------------------------------|-------------------------------------------------|
 * | 1x0000000000000000000000000000000AA  | success for any response                        |
 * | 2x0000000000000000000000000000000AA  | `invalid-input-response`                        |
 * | 3x0000000000000000000000000000000AA  | `timeout-or-duplicate` (token already spent)    |
 */
export const TEST_SITEKEYS = {
  pass: '1x00000000000000000000AA',
  block: '2x00000000000000000000AB',
  interactive: '3x00000000000000000000FF',
} as const;

export const TEST_SECRETS = {
  pass: '1x0000000000000000000000000000000AA',
  fail: '2x0000000000000000000000000000000AA',
  spent: '3x0000000000000000000000000000000AA',
} as const;

/** The answer of every v1 challenge created with a test sitekey. */
export const TEST_ANSWER = 'TEXT';

export type TestSitekeyKind = keyof typeof TEST_SITEKEYS;

export function testSitekeyKind(sitekey: string): TestSitekeyKind | null {
  for (const [kind, key] of Object.entries(TEST_SITEKEYS)) if (key === sitekey) return kind as TestSitekeyKind;
  return null;
}

export function testSecretKind(secret: string): keyof typeof TEST_SECRETS | null {
  for (const [kind, key] of Object.entries(TEST_SECRETS)) if (key === secret) return kind as keyof typeof TEST_SECRETS;
  return null;
}
