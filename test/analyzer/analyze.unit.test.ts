/**
 * analyzeUrl end to end against fixture sites on 127.0.0.1.
 */
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { analyzeUrl, type AnalysisResult } from '../../src/analyzer/analyze.ts';
import type { CheckResult } from '../../src/analyzer/checks/types.ts';
import { AnalyzeError, type AnalyzeFailure } from '../../src/analyzer/errors.ts';
import { defaultAnalyzerOptions, type AnalyzerOptionsOverrides } from '../../src/analyzer/options.ts';
import { reportScoreOf } from '../helpers/report-score.ts';
import { goodHeaders, goodPage, goodPath, goodSite, poorPath, poorSiteFallback } from './fixtures/pages.ts';
import {
  selfSignedCert,
  selfSignedKey,
  startFixtureServer,
  type FixtureHandler,
  type FixtureServer,
} from './fixtures/server.ts';
import { parseTargetUrl } from '../../src/analyzer/address-guard.ts';

const servers: FixtureServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(
  routes: (origin: string) => Record<string, FixtureHandler>,
  fallback?: FixtureHandler,
): Promise<FixtureServer> {
  const table: Record<string, FixtureHandler> = {};
  const server = await startFixtureServer(table, fallback);
  Object.assign(table, routes(server.origin));
  servers.push(server);
  return server;
}

const options = (overrides: AnalyzerOptionsOverrides = {}) =>
  defaultAnalyzerOptions({ allowPrivate: true, ...overrides });

function check(result: AnalysisResult, id: string): CheckResult {
  const found = Object.values(result.results)
    .flat()
    .find((c) => c.id === id);
  if (!found) throw new Error(`no check ${id}`);
  return found;
}

async function failure(promise: Promise<unknown>): Promise<AnalyzeError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AnalyzeError);
  return err as AnalyzeError;
}

async function expectFailure(promise: Promise<unknown>, reason: AnalyzeFailure): Promise<AnalyzeError> {
  const err = await failure(promise);
  expect(err.reason).toBe(reason);
  expect(err.message).toMatch(/\.$/);
  return err;
}

describe('a well-built page', () => {
  it('grades good, and the checks it was built for pass', async () => {
    const site = await serve((origin) => goodSite(origin, 'gzip'));
    const result = await analyzeUrl(parseTargetUrl(`${site.origin}${goodPath}`), options());
    const report = reportScoreOf(result, options().weights);
    expect(report.result).toBe('good');
    expect(report.score).toBeGreaterThanOrEqual(80);
    expect(Number.isInteger(report.score)).toBe(true);
    expect(result.status).toBe(200);
    expect(result.finalUrl).toBe(`${site.origin}${goodPath}`);
    expect(result.project).toBe('127.0.0.1');
    expect(result.httpVersion).toBe('1.1');
    expect(result.timings.totalMs).toBeGreaterThanOrEqual(result.timings.ttfbMs);
    const mustPass = [
      'title',
      'meta_description',
      'headings',
      'content_keywords',
      'image_keywords',
      'seo_friendly_url',
      '404_page',
      'robots',
      'noindex',
      'in_page_links',
      'language',
      'favicon',
      'canonical',
      'hreflang',
      'text_compression',
      'page_size',
      'http_requests',
      'image_format',
      'defer_javascript',
      'dom_size',
      'cache_headers',
      'image_dimensions',
      'mixed_content',
      'server_signature',
      'unsafe_cross_origin_links',
      'plaintext_email',
      'content_security_policy',
      'content_type_options',
      'frame_protection',
      'referrer_policy',
      'structured_data',
      'json_ld_valid',
      'meta_viewport',
      'charset',
      'sitemap',
      'social',
      'open_graph',
      'content_length',
      'text_html_ratio',
      'inline_css',
      'deprecated_html_tags',
      'doctype',
    ];
    for (const id of mustPass)
      expect({ id, passed: check(result, id).passed, details: check(result, id).details }).toMatchObject({
        passed: true,
      });
    // Served over plain HTTP/1.1 with gzip: these cannot pass.
    for (const id of ['https_encryption', 'http_to_https_redirect', 'hsts', 'http2', 'brotli'])
      expect(check(result, id).passed).toBe(false);
    expect(check(result, 'http2').value).toBe('1.1');
    expect(check(result, 'sitemap').value).toBe(`${site.origin}/sitemap-index.xml`);
    expect(check(result, 'social').value).toEqual(['X (Twitter)', 'Facebook']);
    expect(Object.keys(result.results)).toEqual(['seo', 'performance', 'security', 'miscellaneous']);
    for (const [category, list] of Object.entries(result.results))
      for (const c of list) expect(c.category).toBe(category);
  });
});

describe('a poor page', () => {
  it('grades bad, and failing checks name the offending elements', async () => {
    const site = await serve(() => ({}), poorSiteFallback());
    const result = await analyzeUrl(parseTargetUrl(`${site.origin}${poorPath}`), options());
    const report = reportScoreOf(result, options().weights);
    expect(report.result).toBe('bad');
    expect(report.score).toBeLessThan(50);
    const failed = (id: string) => {
      const c = check(result, id);
      expect(c.passed, id).toBe(false);
      return c.details;
    };
    expect(failed('title')).toEqual(['<title>Home</title>', '<title>Second title</title>']);
    expect(failed('headings')).toEqual(['<h1>Home</h1>', '<h1>Another heading</h1>']);
    expect(failed('image_keywords')).toEqual(['<img src="/photo.jpg">']);
    expect(failed('image_format')).toEqual(['<img src="/photo.jpg">', '<img src="/banner.png">']);
    expect(failed('image_dimensions')).toHaveLength(2);
    expect(failed('defer_javascript')).toEqual(['<script src="/jquery.js">']);
    expect(failed('noindex')).toEqual(['<meta name="robots" content="noindex, nofollow">']);
    expect(failed('unsafe_cross_origin_links')).toEqual(['<a href="https://partner.example/deals">']);
    expect(failed('plaintext_email')).toEqual(['info@example.com']);
    expect(failed('inline_css')).toEqual(['<div style="color: red">']);
    expect(failed('deprecated_html_tags')).toEqual(['<font> x1', '<center> x1']);
    expect(failed('server_signature')).toEqual(['server: Apache/2.4.41 (Ubuntu)', 'x-powered-by: PHP/7.4.3']);
    expect(failed('json_ld_valid')[0]).toMatch(/^JSON-LD block 1:/);
    expect(failed('seo_friendly_url').join(' ')).toMatch(/query string.*uppercase.*underscores/);
    expect(failed('in_page_links')).toEqual(['161 links (max 150).']);
    expect(failed('404_page')[0]).toMatch(/answered with status 200/);
    for (const id of [
      'meta_description',
      'language',
      'favicon',
      'canonical',
      'text_compression',
      'meta_viewport',
      'charset',
      'doctype',
      'sitemap',
      'open_graph',
      'content_length',
      'structured_data',
    ]) {
      failed(id);
    }
  });
});

describe('redirects', () => {
  const chain = (hops: number) => (origin: string) => {
    const routes: Record<string, FixtureHandler> = goodSite(origin);
    for (let i = 0; i < hops; i++) {
      const next = i + 1 === hops ? `${origin}${goodPath}` : `/r${i + 1}`;
      routes[`/r${i}`] = { status: i % 2 ? 302 : 301, headers: { location: next } };
    }
    return routes;
  };

  it('follows a chain and records the final URL', async () => {
    const site = await serve(chain(3));
    const result = await analyzeUrl(parseTargetUrl(`${site.origin}/r0`), options());
    expect(result.requestedUrl).toBe(`${site.origin}/r0`);
    expect(result.finalUrl).toBe(`${site.origin}${goodPath}`);
    expect(site.hits.slice(0, 4)).toEqual(['/r0', '/r1', '/r2', goodPath]);
  });

  it('follows exactly maxRedirects hops', async () => {
    const site = await serve(chain(10));
    const result = await analyzeUrl(parseTargetUrl(`${site.origin}/r0`), options());
    expect(result.finalUrl).toBe(`${site.origin}${goodPath}`);
  });

  it('fails with too_many_redirects past 10 hops', async () => {
    const site = await serve(chain(11));
    await expectFailure(analyzeUrl(parseTargetUrl(`${site.origin}/r0`), options()), 'too_many_redirects');
    expect(site.hits).not.toContain(goodPath);
  });

  it('fails on a redirect loop', async () => {
    const site = await serve(() => ({
      '/a': { status: 302, headers: { location: '/b' } },
      '/b': { status: 307, headers: { location: '/a' } },
    }));
    await expectFailure(analyzeUrl(parseTargetUrl(`${site.origin}/a`), options()), 'too_many_redirects');
  });

  it('refuses a redirect to a non-http scheme', async () => {
    const site = await serve(() => ({ '/': { status: 302, headers: { location: 'file:///etc/passwd' } } }));
    await expectFailure(analyzeUrl(parseTargetUrl(`${site.origin}/`), options()), 'invalid_url');
  });
});

describe('content encodings', () => {
  for (const encoding of ['gzip', 'br', 'deflate', undefined] as const) {
    it(`decodes ${encoding ?? 'identity'}`, async () => {
      const site = await serve((origin) => goodSite(origin, encoding));
      const result = await analyzeUrl(parseTargetUrl(`${site.origin}${goodPath}`), options());
      expect(check(result, 'title').value).toBe('Coffee Brewing Guide: Methods and Tips');
      expect(check(result, 'content_length').passed).toBe(true);
      expect(check(result, 'text_compression')).toMatchObject({
        passed: encoding !== undefined,
        value: encoding ?? null,
      });
      expect(check(result, 'brotli').passed).toBe(encoding === 'br');
      expect(check(result, 'page_size').value).toBe(Buffer.byteLength(goodPage(site.origin)));
    });
  }

  it('decodes raw deflate sent as "deflate"', async () => {
    const site = await serve((origin) => ({
      '/': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'deflate' });
        res.end(zlib.deflateRawSync(Buffer.from(goodPage(origin))));
      },
    }));
    const result = await analyzeUrl(parseTargetUrl(`${site.origin}/`), options());
    expect(check(result, 'title').value).toBe('Coffee Brewing Guide: Methods and Tips');
  });
});

describe('robots.txt, 404 handling and indexing', () => {
  it('fails robots_txt when robots.txt disallows the page, naming the rule', async () => {
    const site = await serve((origin) => ({
      ...goodSite(origin),
      '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nDisallow: /guide\n' },
    }));
    const result = await analyzeUrl(parseTargetUrl(`${site.origin}${goodPath}`), options());
    expect(check(result, 'robots').passed).toBe(false);
    expect(check(result, 'robots').details).toEqual(['robots.txt disallows this page (line 2: Disallow: /guide).']);
  });

  it('honours a group for our own agent token', async () => {
    const site = await serve((origin) => ({
      ...goodSite(origin),
      '/robots.txt': { body: 'User-agent: *\nAllow: /\n\nUser-agent: WebsiteAnalyzer\nDisallow: /\n' },
    }));
    const result = await analyzeUrl(parseTargetUrl(`${site.origin}${goodPath}`), options());
    expect(check(result, 'robots').passed).toBe(false);
  });

  it('fails not_found_page when a random path answers 200', async () => {
    const site = await serve((origin) => goodSite(origin), {
      headers: { 'content-type': 'text/html' },
      body: '<p>Everything exists</p>',
    });
    const result = await analyzeUrl(parseTargetUrl(`${site.origin}${goodPath}`), options());
    expect(check(result, '404_page')).toMatchObject({ passed: false, value: 200 });
    expect(site.hits.some((h) => h.startsWith('/this-page-should-not-exist-'))).toBe(true);
  });

  it('fails noindex on an X-Robots-Tag header', async () => {
    const site = await serve((origin) => ({
      ...goodSite(origin),
      [goodPath]: { headers: { ...goodHeaders, 'x-robots-tag': 'googlebot: noindex' }, body: goodPage(origin) },
    }));
    const result = await analyzeUrl(parseTargetUrl(`${site.origin}${goodPath}`), options());
    expect(check(result, 'noindex').details).toEqual(['X-Robots-Tag: googlebot: noindex']);
  });
});

describe('auxiliary fetches', () => {
  it('fail only their own checks when they time out', async () => {
    const site = await serve((origin) => ({
      ...goodSite(origin),
      '/robots.txt': { delayMs: 10_000, body: 'User-agent: *\nDisallow: /\n' },
    }));
    const result = await analyzeUrl(parseTargetUrl(`${site.origin}${goodPath}`), options({ totalTimeoutMs: 300 }));
    expect(result.status).toBe(200);
    expect(check(result, 'robots')).toMatchObject({ passed: true, value: { status: null, rules: false } });
    expect(check(result, 'sitemap').passed).toBe(false);
    expect(check(result, 'sitemap').details[0]).toMatch(/did not load within/);
    expect(check(result, '404_page').passed).toBe(true);
  });
});

describe('failures', () => {
  it('too_large when the body passes the cap (Content-Length, chunked, and decoded)', async () => {
    const big = `<html><body>${'<p>lorem ipsum</p>'.repeat(20_000)}</body></html>`;
    const site = await serve(() => ({
      '/declared': { headers: { 'content-type': 'text/html' }, body: big },
      '/chunked': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        let sent = 0;
        const write = (): void => {
          while (sent < 40 && res.write(`<p>${'x'.repeat(16_000)}</p>`)) sent++;
          if (sent < 40) res.once('drain', write);
          else res.end();
        };
        write();
      },
      '/gzip': { headers: { 'content-type': 'text/html' }, body: big, encoding: 'gzip' },
    }));
    const opts = options({ maxBodyBytes: 100_000 });
    for (const path of ['/declared', '/chunked', '/gzip']) {
      await expectFailure(analyzeUrl(parseTargetUrl(`${site.origin}${path}`), opts), 'too_large');
    }
  });

  it('timeout when the page is slower than totalTimeoutMs', async () => {
    const site = await serve((origin) => ({
      '/slow': { delayMs: 10_000, headers: { 'content-type': 'text/html' }, body: goodPage(origin) },
    }));
    await expectFailure(analyzeUrl(parseTargetUrl(`${site.origin}/slow`), options({ totalTimeoutMs: 200 })), 'timeout');
  });

  it('timeout when the body stalls', async () => {
    const site = await serve(() => ({
      '/stall': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<html><body>'); // never ends
      },
    }));
    await expectFailure(
      analyzeUrl(parseTargetUrl(`${site.origin}/stall`), options({ totalTimeoutMs: 200 })),
      'timeout',
    );
  });

  it('not_html for a JSON response and for an unlabelled binary one', async () => {
    const site = await serve(() => ({
      '/api': { headers: { 'content-type': 'application/json' }, body: '{"a":1}' },
      '/blob': (_req, res) => {
        res.removeHeader('content-type');
        res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      },
    }));
    const err = await expectFailure(analyzeUrl(parseTargetUrl(`${site.origin}/api`), options()), 'not_html');
    expect(err.message).toContain('application/json');
    await expectFailure(analyzeUrl(parseTargetUrl(`${site.origin}/blob`), options()), 'not_html');
  });

  it('http_error for 4xx and 5xx pages', async () => {
    const site = await serve(() => ({ '/boom': { status: 500, body: 'oops' } }));
    await expectFailure(analyzeUrl(parseTargetUrl(`${site.origin}/boom`), options()), 'http_error');
    await expectFailure(analyzeUrl(parseTargetUrl(`${site.origin}/missing`), options()), 'http_error');
  });

  it('refused when nothing listens on the port', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await expectFailure(analyzeUrl(parseTargetUrl(`http://127.0.0.1:${port}/`), options()), 'refused');
  });

  it('tls for an untrusted (self-signed) certificate', async () => {
    const server = createHttpsServer({ key: selfSignedKey, cert: selfSignedCert }, (_req, res) => res.end('<p>hi</p>'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const err = await expectFailure(analyzeUrl(parseTargetUrl(`https://127.0.0.1:${port}/`), options()), 'tls');
      expect(err.message).toMatch(/^The secure connection to 127\.0\.0\.1:\d+ failed \(\w+\)\.$/);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('an unknown .invalid host (answered locally, RFC 6761) gets the one refusal of a name', async () => {
    const err = await expectFailure(
      analyzeUrl(parseTargetUrl('http://no-such-host.invalid/'), options()),
      'forbidden_address',
    );
    expect(err.message).toBe('The host no-such-host.invalid does not resolve to an address that can be analyzed.');
  });

  it('the same refusal when an injected resolver reports ENOTFOUND', async () => {
    const lookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    await expectFailure(analyzeUrl(parseTargetUrl('http://example.test/'), options({ lookup })), 'forbidden_address');
  });

  it('invalid_url for bad input, before anything is fetched', async () => {
    for (const url of [
      'ftp://example.com/',
      'javascript:alert(1)',
      'not a url',
      `http://example.com/${'a'.repeat(2048)}`,
      'http://user:pw@example.com/',
    ]) {
      await expectFailure(
        Promise.resolve().then(() => parseTargetUrl(url)),
        'invalid_url',
      );
    }
  });

  it("rejects with the caller's abort reason", async () => {
    const site = await serve(() => ({ '/slow': { delayMs: 10_000, body: 'x' } }));
    const controller = new AbortController();
    const pending = analyzeUrl(parseTargetUrl(`${site.origin}/slow`), options(), controller.signal);
    setTimeout(() => controller.abort(new Error('client went away')), 20);
    await expect(pending).rejects.toThrow('client went away');
  });
});
