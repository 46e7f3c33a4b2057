/**
 * The gateway's matchers of site owners' patterns: the restricted regular expressions it
 * accepts are safe by recheck's analysis and the classic catastrophic ones are refused; path
 * globs and crawler tokens match as documented.
 */
import { checkSync } from 'recheck';
import { describe, expect, it } from 'vitest';
import { checkSafePattern, compilePathPattern, compileSafePattern, hasToken } from '../../src/gateway/patterns.ts';
import { checkClearance, issueClearance } from '../../src/gateway/clearance.ts';

process.env['RECHECK_SYNC_BACKEND'] = 'pure';

describe('user patterns', () => {
  const accepted = [
    '^curl/',
    'python-requests|go-http-client|libwww-perl',
    '^.*bot',
    '^Mozilla/5\\.0.*Chrome/1',
    '^Mozilla/5\\.0 \\(compatible; [A-Za-z]+/\\d{1,3}',
    'HeadlessChrome',
    '^[a-z]+bot$',
    'x{2,5}y{1,10}',
  ];
  const refused = [
    'bot.*crawler',
    '[a-z]+bot$',
    '^a.*b.*c',
    '(a+)+$',
    '(a|aa)*b',
    '.*.*.*x',
    'a*a*a*b',
    '(?=x)',
    '\\1',
    'a+?',
    'x{1,200}',
    '[unclosed',
  ];

  it.each(accepted)('accepts %s, which recheck finds safe', { timeout: 60_000 }, (source) => {
    expect(checkSafePattern(source)).toBeNull();
    expect(checkSync(source, 'i', { timeout: 20_000 }).status).toBe('safe');
  });

  it.each(refused)('refuses %s', (source) => {
    expect(checkSafePattern(source)).toMatch(/./);
  });

  it('matches case-insensitively, on at most the first 1024 characters', () => {
    const m = compileSafePattern('^curl/');
    expect(m('Curl/8.5')).toBe(true);
    expect(compileSafePattern('tail$')(`${'x'.repeat(2000)}tail`)).toBe(false);
  });
});

describe('path patterns', () => {
  it('is a prefix without *, a whole-path glob with it', () => {
    expect(compilePathPattern('/blog')('/blog/2026/x')).toBe(true);
    expect(compilePathPattern('/blog')('/about')).toBe(false);
    const feed = compilePathPattern('/*/feed.xml');
    expect(feed('/blog/feed.xml')).toBe(true);
    expect(feed('/blog/feed.xml.bak')).toBe(false);
    const mid = compilePathPattern('/api/*/v*/items');
    expect(mid('/api/shop/v2/items')).toBe(true);
    expect(mid('/api/shop/items')).toBe(false);
    expect(compilePathPattern('*.json')('/a/b.json')).toBe(true);
  });
});

describe('crawler tokens', () => {
  it('match whole tokens only', () => {
    expect(hasToken('mozilla/5.0 (compatible; gptbot/1.2)', 'gptbot')).toBe(true);
    expect(hasToken('baiduspider/2.0', 'spider')).toBe(false);
    expect(hasToken('mozilla/5.0 code/1', 'code')).toBe(true);
    expect(hasToken('mozilla/5.0 vscode/1', 'code')).toBe(false);
  });
});

describe('clearance values', () => {
  const key = Buffer.alloc(32, 7);
  const b = { sitekey: 'sk_x', ip: '198.51.100.7', userAgent: 'UA' };

  it('hold until their expiry, on the same /24 and User-Agent only', () => {
    const now = 1_800_000_000_000;
    const v = issueClearance(key, b, now, 60);
    expect(checkClearance(key, v, b, now + 59_000)).toBe(true);
    expect(checkClearance(key, v, b, now + 60_000)).toBe(false);
    expect(checkClearance(key, v, { ...b, ip: '198.51.100.200' }, now)).toBe(true);
    expect(checkClearance(key, v, { ...b, ip: '198.51.101.7' }, now)).toBe(false);
    expect(checkClearance(key, v, { ...b, userAgent: 'UA2' }, now)).toBe(false);
    expect(checkClearance(key, v, { ...b, sitekey: 'sk_y' }, now)).toBe(false);
    // A later expiry written by the client breaks the MAC.
    expect(checkClearance(key, `${Number(v.split('.')[0]) + 999}.${v.split('.')[1]}`, b, now)).toBe(false);
    expect(checkClearance(key, 'garbage', b, now)).toBe(false);
  });
});
