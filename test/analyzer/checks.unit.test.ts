/**
 * Every check passes and fails where it should, over small HTML snippets.
 */
import { describe, expect, it } from 'vitest';
import type { AuxiliaryResults } from '../../src/analyzer/auxiliary-results.ts';
import { allChecks } from '../../src/analyzer/run-checks.ts';
import { runCheck, type PageCheck } from '../../src/analyzer/checks/types.ts';
import { defaultThresholds } from '../../src/analyzer/thresholds.ts';
import { PageContext, type PageInput } from '../../src/analyzer/page.ts';

type Input = Partial<PageInput>;

/** A document with `head` and `body` markup. */
function doc(head: string, body = '', htmlAttrs = ''): string {
  return `<!DOCTYPE html><html${htmlAttrs}><head>${head}</head><body>${body}</body></html>`;
}

const aux = (overrides: Partial<AuxiliaryResults> = {}): AuxiliaryResults => ({
  robots: { url: 'https://example.com/robots.txt', status: 404 },
  notFound: { url: 'https://example.com/this-page-should-not-exist-x', status: 404 },
  sitemap: { url: 'https://example.com/sitemap.xml', status: 200, source: 'default', found: true },
  ...overrides,
});

/** The check with this id; throws for an unknown id. */
function checkById(id: string): PageCheck {
  const check = allChecks.find((c) => c.id === id);
  if (!check) throw new Error(`Unknown check: ${id}`);
  return check;
}

function run(id: string, input: Input) {
  const page = new PageContext({ url: 'https://example.com/a-page', html: doc(''), ...input });
  return runCheck(checkById(id), page);
}

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
const links = (n: number) => Array.from({ length: n }, (_, i) => `<a href="/l${i}">l</a>`).join('');
const imgs = (n: number) => Array.from({ length: n }, (_, i) => `<img src="/i${i}.webp" alt="">`).join('');

interface Case {
  name: string;
  input: Input;
  /** Expected detail entries (exact), when the case fails. */
  details?: unknown[];
}

const table: Record<string, { pass: Case[]; fail: Case[] }> = {
  title: {
    pass: [
      { name: 'one title', input: { html: doc('<title>Hello world</title>') } },
      { name: 'svg titles ignored', input: { html: doc('<title>Real</title>', '<svg><title>icon</title></svg>') } },
    ],
    fail: [
      { name: 'none', input: { html: doc('') }, details: ['The page has no <title>.'] },
      {
        name: 'two',
        input: { html: doc('<title>A</title><title>B</title>') },
        details: ['<title>A</title>', '<title>B</title>'],
      },
      {
        name: 'too long',
        input: { html: doc(`<title>${'x'.repeat(61)}</title>`) },
        details: ['The title is 61 characters long (allowed 1-60).'],
      },
      {
        name: 'empty',
        input: { html: doc('<title> </title>') },
        details: ['The title is 0 characters long (allowed 1-60).'],
      },
    ],
  },
  meta_description: {
    pass: [{ name: 'present', input: { html: doc('<meta name="Description" content="About us">') } }],
    fail: [{ name: 'empty', input: { html: doc('<meta name="description" content=" ">') } }],
  },
  headings: {
    pass: [{ name: 'one, distinct', input: { html: doc('<title>Shop</title>', '<h1>Welcome to the shop</h1>') } }],
    fail: [
      { name: 'none', input: { html: doc('<title>T</title>') }, details: ['The page has no <h1>.'] },
      { name: 'two', input: { html: doc('', '<h1>A</h1><h1>B</h1>') }, details: ['<h1>A</h1>', '<h1>B</h1>'] },
      {
        name: 'same as title',
        input: { html: doc('<title>Shop</title>', '<h1> shop </h1>') },
        details: ['The <h1> repeats the title ("Shop").'],
      },
    ],
  },
  content_keywords: {
    pass: [
      {
        name: 'all present',
        input: { html: doc('<title>Espresso Machines | Acme</title>', '<p>Acme sells espresso machines.</p>') },
      },
    ],
    fail: [
      {
        name: 'missing',
        input: { html: doc('<title>Espresso Machines</title>', '<p>We sell espresso.</p>') },
        details: ['machines'],
      },
    ],
  },
  image_keywords: {
    pass: [{ name: 'empty alt is fine', input: { html: doc('', '<img src="a.png" alt="">') } }],
    fail: [
      {
        name: 'no alt',
        input: { html: doc('', '<img src="a.png" alt="x"><img src="b.png">') },
        details: ['<img src="b.png">'],
      },
    ],
  },
  seo_friendly_url: {
    pass: [{ name: 'lowercase hyphens', input: { url: 'https://example.com/blog/how-to-brew' } }],
    fail: [
      {
        name: 'query',
        input: { url: 'https://example.com/page?id=3' },
        details: ['The URL has a query string (?id=3).'],
      },
      {
        name: 'uppercase',
        input: { url: 'https://example.com/About' },
        details: ['The path contains uppercase letters.'],
      },
      {
        name: 'underscore',
        input: { url: 'https://example.com/about_us' },
        details: ['The path separates words with underscores instead of hyphens.'],
      },
      {
        name: 'space',
        input: { url: 'https://example.com/about%20us' },
        details: ['The path contains spaces or plus signs instead of hyphens.'],
      },
      {
        name: 'long',
        input: { url: `https://example.com/${'a'.repeat(100)}` },
        details: ['The URL is 120 characters long (max 100).'],
      },
    ],
  },
  '404_page': {
    pass: [
      { name: '404', input: { aux: aux() } },
      { name: '410', input: { aux: aux({ notFound: { url: 'https://example.com/x', status: 410 } }) } },
    ],
    fail: [
      {
        name: 'soft 404',
        input: { aux: aux({ notFound: { url: 'https://example.com/x', status: 200 } }) },
        details: ['https://example.com/x answered with status 200, not 404.'],
      },
      { name: 'not fetched', input: {} },
    ],
  },
  robots: {
    pass: [
      { name: 'no robots.txt', input: { aux: aux() } },
      {
        name: 'allowed',
        input: {
          aux: aux({
            robots: { url: 'https://example.com/robots.txt', status: 200, text: 'User-agent: *\nDisallow: /admin' },
          }),
        },
      },
    ],
    fail: [
      {
        name: 'disallowed',
        input: {
          aux: aux({
            robots: { url: 'https://example.com/robots.txt', status: 200, text: 'User-agent: *\nDisallow: /a-' },
          }),
        },
        details: ['robots.txt disallows this page (line 2: Disallow: /a-).'],
      },
    ],
  },
  noindex: {
    pass: [{ name: 'index', input: { html: doc('<meta name="robots" content="index, follow">') } }],
    fail: [
      {
        name: 'meta none',
        input: { html: doc('<meta name="googlebot" content="none">') },
        details: ['<meta name="googlebot" content="none">'],
      },
      { name: 'header', input: { headers: { 'x-robots-tag': 'noindex' } }, details: ['X-Robots-Tag: noindex'] },
    ],
  },
  in_page_links: {
    pass: [{ name: '150', input: { html: doc('', links(150)) } }],
    fail: [{ name: '151', input: { html: doc('', links(151)) }, details: ['151 links (max 150).'] }],
  },
  language: {
    pass: [{ name: 'lang', input: { html: doc('', '', ' lang="de"') } }],
    fail: [{ name: 'none', input: { html: doc('') } }],
  },
  favicon: {
    pass: [{ name: 'shortcut icon', input: { html: doc('<link rel="shortcut icon" href="/f.ico">') } }],
    fail: [{ name: 'none', input: { html: doc('<link rel="stylesheet" href="/s.css">') } }],
  },
  canonical: {
    pass: [{ name: 'one', input: { html: doc('<link rel="canonical" href="/a-page">') } }],
    fail: [
      { name: 'none', input: { html: doc('') } },
      {
        name: 'two',
        input: { html: doc('<link rel="canonical" href="/a"><link rel="canonical" href="/b">') },
        details: ['<link href="/a">', '<link href="/b">'],
      },
    ],
  },
  hreflang: {
    pass: [
      { name: 'absent', input: { html: doc('') } },
      {
        name: 'valid',
        input: {
          html: doc(
            '<link rel="alternate" hreflang="en-US" href="/en"><link rel="alternate" hreflang="zh-Hant-TW" href="/tw"><link rel="alternate" hreflang="x-default" href="/">',
          ),
        },
      },
    ],
    fail: [
      {
        name: 'invalid',
        input: {
          html: doc(
            '<link rel="alternate" hreflang="en_US" href="/en"><link rel="alternate" hreflang="de" href="/de">',
          ),
        },
        details: ['<link hreflang="en_US">'],
      },
    ],
  },
  text_compression: {
    pass: [{ name: 'gzip', input: { headers: { 'content-encoding': 'gzip' } } }],
    fail: [{ name: 'identity', input: { headers: {} } }],
  },
  load_time: {
    pass: [
      { name: 'fast', input: { timings: { ttfbMs: 100, totalMs: 2000 } } },
      {
        name: 'threshold override',
        input: { timings: { ttfbMs: 100, totalMs: 2500 }, thresholds: { ...defaultThresholds, maxLoadTimeMs: 3000 } },
      },
    ],
    fail: [
      {
        name: 'slow',
        input: { timings: { ttfbMs: 100, totalMs: 2001 } },
        details: ['The page took 2001 ms to load (max 2000).'],
      },
    ],
  },
  page_size: {
    pass: [{ name: 'small', input: { decodedBytes: 330 * 1024 } }],
    fail: [{ name: 'large', input: { decodedBytes: 330 * 1024 + 1 } }],
  },
  http_requests: {
    pass: [
      {
        name: '50 (duplicates and data: ignored)',
        input: {
          html: doc(
            '<link rel="stylesheet" href="/s.css">',
            imgs(49) + '<img src="/i0.webp"><img src="data:image/png;base64,AA==">',
          ),
        },
      },
    ],
    fail: [
      {
        name: '51',
        input: { html: doc('<script src="/a.js"></script><link rel="stylesheet" href="/s.css">', imgs(49)) },
        details: ['1 script request(s)', '49 image request(s)', '1 stylesheet request(s)'],
      },
    ],
  },
  image_format: {
    pass: [
      {
        name: 'modern',
        input: {
          html: doc(
            '',
            '<img src="a.webp"><img src="b.AVIF"><img src="c.svg?v=2"><img src="data:image/webp;base64,AA"><img src="/thumb">',
          ),
        },
      },
      {
        name: 'picture with modern source',
        input: { html: doc('', '<picture><source srcset="a.avif" type="image/avif"><img src="a.jpg"></picture>') },
      },
    ],
    fail: [
      {
        name: 'jpeg and png',
        input: { html: doc('', '<img src="a.jpg"><img src="b.webp"><img src="c.png">') },
        details: ['<img src="a.jpg">', '<img src="c.png">'],
      },
    ],
  },
  defer_javascript: {
    pass: [
      {
        name: 'deferred, async, module, inline, body',
        input: {
          html: doc(
            '<script src="a.js" defer></script><script src="b.js" async></script><script type="module" src="c.js"></script><script>1</script>',
            '<script src="d.js"></script>',
          ),
        },
      },
    ],
    fail: [
      {
        name: 'blocking',
        input: { html: doc('<script src="a.js"></script><script src="b.js" defer></script>') },
        details: ['<script src="a.js">'],
      },
    ],
  },
  dom_size: {
    pass: [{ name: 'small', input: { html: doc('', '<div></div>'.repeat(10)) } }],
    fail: [
      {
        name: 'over threshold',
        input: { html: doc('', '<div></div>'.repeat(10)), thresholds: { ...defaultThresholds, maxDomNodes: 10 } },
        details: ['13 DOM elements (max 10).'],
      },
    ],
  },
  cache_headers: {
    pass: [{ name: 'etag', input: { headers: { etag: '"x"' } } }],
    fail: [{ name: 'none', input: { headers: {} } }],
  },
  brotli: {
    pass: [{ name: 'br', input: { headers: { 'content-encoding': 'br' } } }],
    fail: [{ name: 'gzip', input: { headers: { 'content-encoding': 'gzip' } } }],
  },
  http2: {
    pass: [{ name: '2.0', input: { httpVersion: '2.0' } }],
    fail: [{ name: '1.1', input: { httpVersion: '1.1' }, details: ['Served over HTTP/1.1.'] }],
  },
  image_dimensions: {
    pass: [{ name: 'both', input: { html: doc('', '<img src="a.webp" width="10" height="10">') } }],
    fail: [
      {
        name: 'missing height',
        input: { html: doc('', '<img src="a.webp" width="10">') },
        details: ['<img src="a.webp">'],
      },
    ],
  },
  https_encryption: {
    pass: [{ name: 'https', input: {} }],
    fail: [{ name: 'http', input: { url: 'http://example.com/' } }],
  },
  http_to_https_redirect: {
    pass: [
      { name: 'requested http, landed https', input: { requestedUrl: 'http://example.com/a-page' } },
      {
        name: 'probe redirects',
        input: {
          aux: aux({
            httpVariant: { url: 'http://example.com/a-page', status: 301, finalUrl: 'https://example.com/a-page' },
          }),
        },
      },
    ],
    fail: [
      {
        name: 'probe stays http',
        input: {
          aux: aux({
            httpVariant: { url: 'http://example.com/a-page', status: 200, finalUrl: 'http://example.com/a-page' },
          }),
        },
        details: ['http://example.com/a-page does not redirect to HTTPS (status 200).'],
      },
      {
        name: 'probe refused',
        input: {
          aux: aux({
            httpVariant: {
              url: 'http://example.com/a-page',
              error: 'The server at example.com refused the connection.',
            },
          }),
        },
        details: ['The server at example.com refused the connection.'],
      },
      { name: 'http page', input: { url: 'http://example.com/' } },
    ],
  },
  mixed_content: {
    pass: [
      {
        name: 'https resources',
        input: {
          html: doc(
            '<script src="https://cdn.example/a.js"></script>',
            '<img src="/a.webp"><a href="http://other.example/">link</a>',
          ),
        },
      },
      {
        name: 'http page',
        input: { url: 'http://example.com/', html: doc('', '<img src="http://cdn.example/a.webp">') },
      },
    ],
    fail: [
      {
        name: 'http image and stylesheet',
        input: {
          html: doc('<link rel="stylesheet" href="http://cdn.example/s.css">', '<img src="http://cdn.example/a.webp">'),
        },
        details: ['<img src="http://cdn.example/a.webp">', '<link href="http://cdn.example/s.css">'],
      },
    ],
  },
  server_signature: {
    pass: [{ name: 'bare product', input: { headers: { server: 'nginx' } } }],
    fail: [
      { name: 'version', input: { headers: { server: 'nginx/1.18.0' } }, details: ['server: nginx/1.18.0'] },
      {
        name: 'asp.net',
        input: { headers: { 'x-aspnet-version': '4.0.30319' } },
        details: ['x-aspnet-version: 4.0.30319'],
      },
    ],
  },
  unsafe_cross_origin_links: {
    pass: [
      {
        name: 'same origin or rel',
        input: {
          html: doc(
            '',
            '<a href="/x" target="_blank">a</a><a href="https://o.example/" target="_blank" rel="noopener">b</a><a href="https://o.example/">c</a>',
          ),
        },
      },
    ],
    fail: [
      {
        name: 'cross-origin _blank',
        input: { html: doc('', '<a href="https://o.example/" target="_BLANK" rel="nofollow">b</a>') },
        details: ['<a href="https://o.example/">'],
      },
    ],
  },
  plaintext_email: {
    pass: [{ name: 'none', input: { html: doc('', '<p>Contact us via the form.</p>') } }],
    fail: [
      {
        name: 'text and mailto',
        input: {
          html: doc('', '<p>Mail jane.doe@example.co.uk</p><a href="mailto:sales@example.com?subject=hi">Sales</a>'),
        },
        details: ['jane.doe@example.co.uk', 'sales@example.com'],
      },
    ],
  },
  hsts: {
    pass: [
      { name: 'max-age', input: { headers: { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } } },
    ],
    fail: [
      { name: 'max-age=0', input: { headers: { 'strict-transport-security': 'max-age=0' } } },
      { name: 'http', input: { url: 'http://example.com/', headers: { 'strict-transport-security': 'max-age=100' } } },
    ],
  },
  content_security_policy: {
    pass: [
      { name: 'header', input: { headers: { 'content-security-policy': "default-src 'self'" } } },
      {
        name: 'meta',
        input: { html: doc(`<meta http-equiv="Content-Security-Policy" content="default-src 'self'">`) },
      },
    ],
    fail: [
      { name: 'report-only', input: { headers: { 'content-security-policy-report-only': "default-src 'self'" } } },
    ],
  },
  content_type_options: {
    pass: [{ name: 'nosniff', input: { headers: { 'x-content-type-options': 'nosniff' } } }],
    fail: [{ name: 'missing', input: {} }],
  },
  frame_protection: {
    pass: [
      { name: 'XFO', input: { headers: { 'x-frame-options': 'SAMEORIGIN' } } },
      {
        name: 'frame-ancestors',
        input: { headers: { 'content-security-policy': "default-src 'self'; frame-ancestors 'none'" } },
      },
    ],
    fail: [{ name: 'ALLOW-FROM', input: { headers: { 'x-frame-options': 'ALLOW-FROM https://a.example' } } }],
  },
  referrer_policy: {
    pass: [
      { name: 'header', input: { headers: { 'referrer-policy': 'no-referrer' } } },
      { name: 'meta', input: { html: doc('<meta name="referrer" content="origin">') } },
    ],
    fail: [{ name: 'none', input: {} }],
  },
  structured_data: {
    pass: [
      { name: 'json-ld', input: { html: doc('<script type="application/ld+json">{"@type":"Organization"}</script>') } },
      { name: 'microdata', input: { html: doc('', '<div itemscope itemtype="https://schema.org/Person"></div>') } },
      { name: 'rdfa', input: { html: doc('', '<div vocab="https://schema.org/" typeof="Event"></div>') } },
    ],
    fail: [{ name: 'only invalid json-ld', input: { html: doc('<script type="application/ld+json">{oops</script>') } }],
  },
  json_ld_valid: {
    pass: [
      { name: 'none', input: {} },
      { name: 'valid', input: { html: doc('<script type="application/ld+json">[{"@type":"A"}]</script>') } },
    ],
    fail: [
      {
        name: 'second invalid',
        input: {
          html: doc('<script type="application/ld+json">{}</script><script type="application/ld+json"></script>'),
        },
      },
    ],
  },
  meta_viewport: {
    pass: [{ name: 'present', input: { html: doc('<meta name="viewport" content="width=device-width">') } }],
    fail: [{ name: 'missing', input: {} }],
  },
  charset: {
    pass: [
      { name: 'meta charset', input: { html: doc('<meta charset="utf-8">') } },
      {
        name: 'http-equiv',
        input: { html: doc('<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">') },
      },
      { name: 'header', input: { headers: { 'content-type': 'text/html; charset=UTF-8' } } },
    ],
    fail: [{ name: 'none', input: { headers: { 'content-type': 'text/html' } } }],
  },
  sitemap: {
    pass: [{ name: 'found', input: { aux: aux() } }],
    fail: [
      {
        name: 'absent',
        input: {
          aux: aux({
            sitemap: { url: 'https://example.com/sitemap.xml', status: 404, source: 'default', found: false },
          }),
        },
        details: ['https://example.com/sitemap.xml answered with status 404 and is not a sitemap.'],
      },
    ],
  },
  social: {
    pass: [{ name: 'linkedin', input: { html: doc('', '<a href="https://www.linkedin.com/company/x">in</a>') } }],
    fail: [{ name: 'look-alike', input: { html: doc('', '<a href="https://notfacebook.com/">x</a>') } }],
  },
  open_graph: {
    pass: [
      {
        name: 'required four',
        input: {
          html: doc(
            '<meta property="og:title" content="a"><meta property="og:type" content="website"><meta property="og:image" content="/i.webp"><meta property="og:url" content="/">',
          ),
        },
      },
    ],
    fail: [
      {
        name: 'missing',
        input: {
          html: doc(
            '<meta property="og:title" content="a"><meta property="og:type" content="website"><meta property="og:image" content="/i.webp">',
          ),
        },
        details: ['Missing og:url'],
      },
    ],
  },
  content_length: {
    pass: [
      {
        name: '500 words',
        input: { html: doc('<title>not counted</title>', `<p>${words(500)}</p><script>var notCounted = 1</script>`) },
      },
    ],
    fail: [{ name: '499 words', input: { html: doc('', `<p>${words(499)}</p>`) }, details: ['499 words (min 500).'] }],
  },
  text_html_ratio: {
    pass: [{ name: 'text heavy', input: { html: doc('', `<p>${words(50)}</p>`) } }],
    fail: [{ name: 'markup heavy', input: { html: doc('', `<div class="${'x'.repeat(1000)}">hi</div>`) } }],
  },
  inline_css: {
    pass: [{ name: 'none', input: { html: doc('<style>p{color:red}</style>', '<p class="x">a</p>') } }],
    fail: [
      {
        name: 'style attribute',
        input: { html: doc('', '<p style="color:red">a</p>') },
        details: ['<p style="color:red">'],
      },
    ],
  },
  deprecated_html_tags: {
    pass: [{ name: 'modern', input: { html: doc('', '<strong>a</strong>') } }],
    fail: [
      {
        name: 'font and marquee',
        input: { html: doc('', '<font>a</font><font>b</font><marquee>c</marquee>') },
        details: ['<font> x2', '<marquee> x1'],
      },
    ],
  },
  doctype: {
    pass: [{ name: 'after a comment', input: { html: '<!-- hi -->\n<!doctype html><html></html>' } }],
    fail: [{ name: 'missing', input: { html: '<html><body>x</body></html>' } }],
  },
};

describe('check table', () => {
  it('covers every check', () => {
    expect(Object.keys(table).sort()).toEqual(allChecks.map((c) => c.id).sort());
  });

  for (const [id, cases] of Object.entries(table)) {
    describe(id, () => {
      for (const c of cases.pass) {
        it(`passes: ${c.name}`, () => {
          const result = run(id, c.input);
          expect(result.passed, JSON.stringify(result.details)).toBe(true);
          expect(result.details).toEqual([]);
        });
      }
      for (const c of cases.fail) {
        it(`fails: ${c.name}`, () => {
          const result = run(id, c.input);
          expect(result.passed).toBe(false);
          expect(result.details.length).toBeGreaterThan(0);
          if (c.details) expect(result.details).toEqual(c.details);
        });
      }
    });
  }
});

describe('check results', () => {
  it('cap details at 20 while the value keeps the full count', () => {
    const result = run('image_keywords', { html: doc('', '<img src="x.png">'.repeat(30)) });
    expect(result.details).toHaveLength(20);
    expect(result.value).toEqual({ images: 30, missingAlt: 30 });
  });

  it('carry id, category and importance', () => {
    expect(run('https_encryption', {})).toMatchObject({
      id: 'https_encryption',
      category: 'security',
      importance: 'high',
      passed: true,
      value: 'https',
    });
  });

  it('every check id is unique and each category has checks', () => {
    const ids = allChecks.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const category of ['seo', 'performance', 'security', 'miscellaneous']) {
      expect(allChecks.some((c) => c.category === category)).toBe(true);
    }
  });
});
