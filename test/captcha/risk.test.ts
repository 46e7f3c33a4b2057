import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideManaged, RISK_BASELINE, scoreRisk, type RiskSignals } from '../../src/captcha/risk.ts';

const browser: RiskSignals = {
  ipRequestsPerMinute: 2,
  siteRequestsPerMinute: 40,
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  acceptLanguage: 'en-GB,en;q=0.9',
  origin: 'https://shop.example',
  referer: 'https://shop.example/checkout',
};
const base = scoreRisk(browser).score;
const with_ = (over: Partial<RiskSignals>) => scoreRisk({ ...browser, ...over });

describe('scoreRisk', () => {
  it('gives an ordinary browser the baseline, with no reasons', () => {
    expect(scoreRisk(browser)).toEqual({ score: RISK_BASELINE, reasons: [] });
  });

  const lowers: [string, Partial<RiskSignals>, string][] = [
    ['a high request rate from the address', { ipRequestsPerMinute: 60 }, 'ip_rate_high'],
    ['a very high request rate from the address', { ipRequestsPerMinute: 500 }, 'ip_rate_very_high'],
    ['a high request rate to the site', { siteRequestsPerMinute: 5000 }, 'site_rate_high'],
    ['a missing User-Agent', { userAgent: undefined }, 'ua_missing'],
    ['a blank User-Agent', { userAgent: '  ' }, 'ua_missing'],
    ['a missing Accept-Language', { acceptLanguage: undefined }, 'accept_language_missing'],
    ['a Referer from another origin', { referer: 'https://evil.example/page' }, 'referer_origin_mismatch'],
    ['an unparseable Referer', { referer: 'not a url' }, 'referer_origin_mismatch'],
    ['webdriver', { telemetry: { webdriver: true } }, 'webdriver'],
    ['a very short time on page', { telemetry: { timeOnPageMs: 300 } }, 'fast_submit'],
    ['zero interactions', { telemetry: { interactions: 0 } }, 'no_interaction'],
  ];
  for (const [what, over, reason] of lowers) {
    it(`is lowered by ${what}`, () => {
      const r = with_(over);
      expect(r.score).toBeLessThan(base);
      expect(r.reasons).toContain(reason);
    });
  }

  const automation = [
    'Mozilla/5.0 HeadlessChrome/120.0',
    'Mozilla/5.0 PhantomJS/2.1',
    'puppeteer',
    'Playwright/1.40',
    'selenium/4',
    'python-requests/2.31',
    'curl/8.4.0',
    'Wget/1.21',
    'Go-http-client/1.1',
    'node-fetch/1.0',
    'axios/1.6.0',
    'Googlebot/2.1 (+http://www.google.com/bot.html)',
    'SomeCrawler/1.0',
    'MySpider/3',
  ];
  for (const ua of automation) {
    it(`is lowered by the automation User-Agent ${ua}`, () => {
      const r = with_({ userAgent: ua });
      expect(r.score).toBeLessThan(base);
      expect(r.reasons).toContain('ua_automation');
    });
  }

  it('ranks the adjustments: webdriver < very high rate < high rate; site rate only slightly', () => {
    expect(with_({ telemetry: { webdriver: true } }).score).toBeLessThan(with_({ ipRequestsPerMinute: 500 }).score);
    expect(with_({ ipRequestsPerMinute: 500 }).score).toBeLessThan(with_({ ipRequestsPerMinute: 60 }).score);
    expect(base - with_({ siteRequestsPerMinute: 5000 }).score).toBeLessThanOrEqual(0.1 + 1e-9);
    expect(base - with_({ telemetry: { interactions: 0 } }).score).toBeLessThanOrEqual(0.05 + 1e-9);
  });

  it('is raised by several interactions and by a solved proof of work', () => {
    expect(with_({ telemetry: { interactions: 5 } }).score).toBeGreaterThan(base);
    expect(with_({ telemetry: { interactions: 5 } }).reasons).toEqual(['interactions']);
    expect(with_({ powSolved: true }).score).toBeGreaterThan(base);
    expect(with_({ powSolved: true }).reasons).toEqual(['pow_solved']);
  });

  it('does not count a matching Referer, a long visit, or one interaction', () => {
    expect(with_({ telemetry: { timeOnPageMs: 20_000, interactions: 1, webdriver: false } }).score).toBe(base);
    expect(with_({ origin: 'https://Shop.example', referer: 'https://shop.example/' }).score).toBe(base);
    expect(with_({ origin: undefined, referer: 'https://elsewhere.example/' }).score).toBe(base);
  });

  it('clamps to [0, 1] with two decimals, deterministically (property)', () => {
    const signals = fc.record({
      ipRequestsPerMinute: fc.nat(1000),
      siteRequestsPerMinute: fc.nat(10_000),
      userAgent: fc.option(fc.constantFrom('Mozilla/5.0', 'curl/8', ''), { nil: undefined }),
      acceptLanguage: fc.option(fc.constantFrom('en', ''), { nil: undefined }),
      origin: fc.option(fc.constantFrom('https://a.example', 'https://b.example'), { nil: undefined }),
      referer: fc.option(fc.constantFrom('https://a.example/x', 'junk'), { nil: undefined }),
      telemetry: fc.option(
        fc.record({ webdriver: fc.boolean(), timeOnPageMs: fc.nat(10_000), interactions: fc.nat(10) }, { requiredKeys: [] }),
        { nil: undefined },
      ),
      powSolved: fc.option(fc.boolean(), { nil: undefined }),
    });
    fc.assert(
      fc.property(signals, (s) => {
        const r = scoreRisk(s);
        expect(r.score).toBeGreaterThanOrEqual(0);
        expect(r.score).toBeLessThanOrEqual(1);
        expect(Math.round(r.score * 100) / 100).toBe(r.score);
        expect(scoreRisk(s)).toEqual(r);
      }),
    );
  });

  it('reaches both ends of the range', () => {
    expect(scoreRisk({ ipRequestsPerMinute: 999, siteRequestsPerMinute: 9999, telemetry: { webdriver: true } }).score).toBe(0);
    expect(with_({ powSolved: true, telemetry: { interactions: 9 } }).score).toBe(1);
  });
});

describe('decideManaged', () => {
  it('passes at 0.7 and above', () => {
    expect(decideManaged(0.7)).toEqual({ outcome: 'pass' });
    expect(decideManaged(1)).toEqual({ outcome: 'pass' });
  });

  it('asks for proof of work between 0.3 and 0.7, harder as the score drops', () => {
    expect(decideManaged(0.69)).toEqual({ outcome: 'pow', difficulty: 12 });
    expect(decideManaged(0.5)).toEqual({ outcome: 'pow', difficulty: 16 });
    expect(decideManaged(0.3)).toEqual({ outcome: 'pow', difficulty: 20 });
    let last = 0;
    for (let s = 69; s >= 30; s--) {
      const d = decideManaged(s / 100);
      if (d.outcome !== 'pow') throw new Error(`expected pow at ${s / 100}`);
      expect(d.difficulty).toBeGreaterThanOrEqual(last);
      expect(d.difficulty).toBeGreaterThanOrEqual(12);
      expect(d.difficulty).toBeLessThanOrEqual(20);
      last = d.difficulty;
    }
  });

  it('challenges below 0.3 (and on NaN)', () => {
    expect(decideManaged(0.29)).toEqual({ outcome: 'challenge' });
    expect(decideManaged(0)).toEqual({ outcome: 'challenge' });
    expect(decideManaged(Number.NaN)).toEqual({ outcome: 'challenge' });
  });
});
