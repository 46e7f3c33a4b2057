/**
 * Small units: options, scoring, error mapping, body reading and charset decoding.
 */
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseTargetUrl } from '../../src/analyzer/address-guard.ts';
import { sitemapsFromRobots, looksLikeSitemap } from '../../src/analyzer/auxiliary.ts';
import { decodeHtml, readBody } from '../../src/analyzer/body.ts';
import type { CheckResult } from '../../src/analyzer/checks/types.ts';
import { AnalyzeError, toAnalyzeError } from '../../src/analyzer/errors.ts';
import { defaultAnalyzerOptions } from '../../src/analyzer/options.ts';
import { robotsAgentToken } from '../../src/analyzer/thresholds.ts';
import { gradeOf, scoreResults } from '../../src/analyzer/scoring.ts';

describe('defaultAnalyzerOptions', () => {
  it('has the documented defaults', () => {
    const o = defaultAnalyzerOptions();
    expect(o).toMatchObject({
      allowPrivate: false,
      connectTimeoutMs: 5000,
      totalTimeoutMs: 15000,
      maxBodyBytes: 5 * 1024 * 1024,
      maxRedirects: 10,
      weights: { high: 10, medium: 5, low: 0 },
    });
    expect(o.thresholds).toMatchObject({
      titleMaxLength: 60,
      maxLinks: 150,
      maxLoadTimeMs: 2000,
      maxPageSizeBytes: 330 * 1024,
      maxRequests: 50,
      maxDomNodes: 1500,
      minWords: 500,
      minTextHtmlRatio: 10,
    });
  });

  it('merges thresholds and weights key by key', () => {
    const o = defaultAnalyzerOptions({ allowPrivate: true, thresholds: { minWords: 300 }, weights: { low: 1 } });
    expect(o.allowPrivate).toBe(true);
    expect(o.thresholds.minWords).toBe(300);
    expect(o.thresholds.maxLinks).toBe(150);
    expect(o.weights).toEqual({ high: 10, medium: 5, low: 1 });
  });

  it('derives the robots.txt agent token from the User-Agent', () => {
    expect(robotsAgentToken(o().userAgent)).toBe('WebsiteAnalyzer');
    expect(robotsAgentToken('MyBot/2.0')).toBe('MyBot');
    function o() {
      return defaultAnalyzerOptions();
    }
  });
});

describe('scoring', () => {
  const r = (importance: CheckResult['importance'], passed: boolean): CheckResult => ({
    id: 'x',
    category: 'seo',
    importance,
    passed,
    value: null,
    details: [],
  });
  const weights = { high: 10, medium: 5, low: 2 };

  it('is the weighted share of passed checks', () => {
    expect(scoreResults([r('high', true), r('medium', false), r('low', true)], weights)).toEqual({
      score: 71,
      result: 'decent',
    });
    expect(scoreResults([r('high', true)], weights)).toEqual({ score: 100, result: 'good' });
    expect(scoreResults([r('high', false), r('low', true)], weights)).toEqual({ score: 17, result: 'bad' });
    expect(scoreResults([], weights).score).toBe(0);
  });

  it('grades at 80 and 49, as phpRank does', () => {
    expect([gradeOf(80), gradeOf(79), gradeOf(49), gradeOf(48)]).toEqual(['good', 'decent', 'decent', 'bad']);
  });
});

describe('toAnalyzeError', () => {
  const cases: Array<[code: string, reason: AnalyzeError['reason']]> = [
    ['ENOTFOUND', 'dns'],
    ['EAI_AGAIN', 'dns'],
    ['ECONNREFUSED', 'refused'],
    ['UND_ERR_CONNECT_TIMEOUT', 'timeout'],
    ['UND_ERR_HEADERS_TIMEOUT', 'timeout'],
    ['ETIMEDOUT', 'timeout'],
    ['CERT_HAS_EXPIRED', 'tls'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls'],
    ['ECONNRESET', 'network'],
  ];
  it.each(cases)('%s -> %s', (code, reason) => {
    const err = toAnalyzeError(Object.assign(new Error('x'), { code }), 'https://example.com/');
    expect(err.reason).toBe(reason);
    expect(err.message).toContain('example.com');
  });

  it('looks through undici wrappers via cause', () => {
    const wrapped = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }),
    });
    expect(toAnalyzeError(wrapped, 'http://a.example/').reason).toBe('refused');
  });
});

describe('parseTargetUrl', () => {
  it('canonicalises and accepts http(s)', () => {
    expect(parseTargetUrl('  HTTP://Example.COM/a ').href).toBe('http://example.com/a');
    expect(parseTargetUrl('/next', new URL('https://example.com/a')).href).toBe('https://example.com/next');
  });
  it.each(['mailto:a@example.com', 'data:text/html,hi', 'http://', `https://e.com/${'x'.repeat(2040)}`])(
    'refuses %s',
    (url) => {
      expect(() => parseTargetUrl(url)).toThrow(AnalyzeError);
    },
  );
});

describe('readBody', () => {
  const html = Buffer.from('<p>hello</p>'.repeat(1000));
  const stream = (buf: Buffer) => Readable.from([buf.subarray(0, 100), buf.subarray(100)]);

  it.each([
    ['gzip', zlib.gzipSync(html)],
    ['br', zlib.brotliCompressSync(html)],
    ['deflate', zlib.deflateSync(html)],
    ['deflate', zlib.deflateRawSync(html)],
    [undefined, html],
  ] as const)('decodes %s', async (encoding, bytes) => {
    const body = await readBody(stream(bytes), encoding, { maxBytes: 1e6, truncate: false });
    expect(body.bytes.equals(html)).toBe(true);
    expect(body.transferredBytes).toBe(bytes.length);
    expect(body.decodedBytes).toBe(html.length);
  });

  it('fails too_large on decoded size, or truncates when asked', async () => {
    const gz = zlib.gzipSync(html);
    await expect(readBody(stream(gz), 'gzip', { maxBytes: 5000, truncate: false })).rejects.toMatchObject({
      reason: 'too_large',
    });
    const cut = await readBody(stream(gz), 'gzip', { maxBytes: 5000, truncate: true });
    expect(cut).toMatchObject({ truncated: true, decodedBytes: 5000 });
    expect(cut.bytes.equals(html.subarray(0, 5000))).toBe(true);
  });

  it('refuses unknown encodings', async () => {
    await expect(readBody(stream(html), 'compress', { maxBytes: 1e6, truncate: false })).rejects.toMatchObject({
      reason: 'network',
    });
  });
});

describe('decodeHtml', () => {
  const latin1 = Buffer.from([0x3c, 0x70, 0x3e, 0xe9, 0x3c, 0x2f, 0x70, 0x3e]); // <p>é</p>
  it('uses the Content-Type charset, then <meta charset>, then UTF-8', () => {
    expect(decodeHtml(latin1, 'text/html; charset=ISO-8859-1')).toBe('<p>é</p>');
    expect(decodeHtml(Buffer.concat([Buffer.from('<meta charset="windows-1252">'), latin1]), 'text/html')).toContain(
      '<p>é</p>',
    );
    expect(decodeHtml(Buffer.from('<p>é</p>'), undefined)).toBe('<p>é</p>');
    expect(decodeHtml(Buffer.from('\uFEFF<p>x</p>'), 'text/html; charset=latin1')).toBe('<p>x</p>');
  });
});

describe('sitemap helpers', () => {
  it('reads Sitemap: lines', () => {
    expect(
      sitemapsFromRobots(
        'User-agent: *\nsitemap: /a.xml\nSitemap: https://cdn.example/b.xml',
        new URL('https://example.com/'),
      ),
    ).toEqual(['https://example.com/a.xml', 'https://cdn.example/b.xml']);
  });
  it('recognises sitemaps and not soft-404 HTML', () => {
    expect(looksLikeSitemap(200, 'application/xml', '<?xml version="1.0"?><urlset>')).toBe(true);
    expect(looksLikeSitemap(200, 'text/html', '<html>Not found</html>')).toBe(false);
    expect(looksLikeSitemap(404, 'application/xml', '<urlset>')).toBe(false);
  });
});
