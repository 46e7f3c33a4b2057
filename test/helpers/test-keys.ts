/**
 * The providers' published test keys, written out as a site's own test suite has them (not
 * read from shared/providers.ts), so the tests check that the keys the providers publish work.
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
