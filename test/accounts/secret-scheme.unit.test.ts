import { describe, expect, it } from 'vitest';
import {
  apiKeyScheme,
  parseBearer,
  sameSecret,
  secretScheme,
  siteSecretScheme,
} from '../../src/accounts/secret-scheme.ts';
import { parseId } from '../../src/input/ids.ts';

describe('prefixed secrets (API keys and site secrets)', () => {
  it.each([
    ['ak', apiKeyScheme],
    ['sec', siteSecretScheme],
  ])('%s_: generates, parses its prefix, hashes and matches', (tag, scheme) => {
    const { secret, prefix } = scheme.generate();
    expect(secret).toMatch(new RegExp(`^${tag}_[0-9a-f]{10}_[A-Za-z0-9_-]{43}$`));
    expect(scheme.prefixOf(secret)).toBe(prefix);
    const stored = scheme.hash(secret).toString('hex');
    expect(stored).toHaveLength(64);
    expect(scheme.matches(secret, stored)).toBe(true);
    expect(scheme.matches(`${secret.slice(0, -1)}x`, stored)).toBe(false);
    expect(scheme.matches(secret, null)).toBe(false);
    expect(scheme.matches(secret, 'abcd')).toBe(false);
  });

  it('does not take one scheme’s secret for the other’s', () => {
    const key = apiKeyScheme.generate().secret;
    expect(siteSecretScheme.prefixOf(key)).toBeUndefined();
    expect(secretScheme('sec').prefixOf(siteSecretScheme.generate().secret)).toMatch(/^[0-9a-f]{10}$/);
    expect(apiKeyScheme.prefixOf('ak_0123456789_short')).toBeUndefined();
  });

  it('parses Bearer headers strictly', () => {
    expect(parseBearer('Bearer abc')).toBe('abc');
    expect(parseBearer('bearer   abc ')).toBe('abc');
    expect(parseBearer('Bearer')).toBeUndefined();
    expect(parseBearer('Bearer a b')).toBeUndefined();
    expect(parseBearer('Token abc')).toBeUndefined();
    expect(parseBearer(undefined)).toBeUndefined();
  });

  it('compares tokens without an empty match', () => {
    expect(sameSecret('t0ken', 't0ken')).toBe(true);
    expect(sameSecret('t0ken', 't0kem')).toBe(false);
    expect(sameSecret('', '')).toBe(false);
  });
});

describe('numeric path ids', () => {
  it('takes digits within integer range, nothing else', () => {
    expect(parseId('1')).toBe(1);
    expect(parseId('2147483647')).toBe(2_147_483_647);
    for (const bad of ['0', '01', '2147483648', '99999999999', '-1', '1.0', '1e3', ' 1', 'abc', '']) {
      expect(parseId(bad), bad).toBeUndefined();
    }
  });
});
