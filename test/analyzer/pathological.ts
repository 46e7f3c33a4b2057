/**
 * A generator of pathological inputs for every check: pages (and the headers, URL and
 * robots.txt beside them) built to hit the worst case of each check's code, scaled to about
 * `bytes`. Each case names the checks it aims at; every analysis runs every check anyway.
 */

/** One hostile input. */
export interface PathologicalCase {
  name: string;
  /** Check ids this case aims at. */
  targets: string[];
  html: string;
  /** Response headers of the page (content-type is added when absent). */
  headers?: Record<string, string>;
  /** Path the page is served at (default `/`). */
  path?: string;
  /** A robots.txt to serve beside the page. */
  robots?: string;
  /**
   * Parsing and selecting are super-linear on this input, O(elements x depth): the HTML
   * tree-building algorithm walks the stack of open elements for each tag, and cheerio's
   * selector engine keeps its traversal stack with Array#unshift. At full size such a page
   * can only end by the check budget. Per-check timing skips it; the service fails it cleanly.
   */
  parserBound?: boolean;
}

const fill = (unit: string, bytes: number): string => unit.repeat(Math.max(1, Math.floor(bytes / unit.length)));

/** Header values stay under the HTTP clients' 16 KB header limit. */
const headerBytes = 6_000;

/** The cases, each about `bytes` long (1 MiB by default). */
export function pathologicalCases(bytes = 1 << 20): PathologicalCase[] {
  const half = bytes >> 1;
  return [
    // The two pages of the issue, scaled up.
    { name: 'empty comments, no doctype', targets: ['doctype'], html: fill('<!---->', bytes) },
    {
      name: 'letters only',
      targets: ['plaintext_email', 'content_length', 'content_keywords', 'text_html_ratio'],
      html: fill('a', bytes),
    },
    { name: 'unterminated comment', targets: ['doctype'], html: `<!--${fill('-', bytes)}` },
    { name: 'comments then junk then -->', targets: ['doctype'], html: fill('<!-- x --> y -->', bytes) },
    { name: 'doctype without >', targets: ['doctype'], html: `<!DOCTYPE html ${fill(' ', bytes)}` },
    { name: 'at-signs', targets: ['plaintext_email'], html: `<p>${fill('a@', bytes)}</p>` },
    { name: 'almost-addresses', targets: ['plaintext_email'], html: `<p>${fill('a@b.', bytes)}</p>` },
    { name: 'long domain labels', targets: ['plaintext_email'], html: `<p>x@${fill('ab-', bytes)}.c</p>` },
    { name: 'many mailto links', targets: ['plaintext_email'], html: fill('<a href="mailto:%E0%A4%A">m</a>', bytes) },
    {
      name: 'word joiners',
      targets: ['content_length', 'content_keywords'],
      html: `<title>a-b x</title><p>${fill("a'", half)}${fill('a-', half)}</p>`,
    },
    {
      name: 'many titles in svg',
      targets: ['title', 'headings', 'content_keywords'],
      html: fill('<svg><title>t</title></svg><title>x</title>', bytes),
    },
    {
      name: 'huge title',
      targets: ['title', 'headings', 'content_keywords'],
      html: `<title>${fill('word ', half)}</title><h1>${fill('word ', half)}</h1>`,
    },
    { name: 'many h1', targets: ['headings'], html: fill('<h1>h</h1>', bytes) },
    {
      name: 'nesting 1k deep',
      targets: ['dom_size', 'title'],
      html: `${'<div>'.repeat(1_000)}<svg><title>t</title></svg>${fill('<a href="/x">x</a>', bytes)}`,
    },
    {
      name: 'deep nesting',
      targets: ['dom_size', 'title'],
      html: `${fill('<div>', half)}<svg><title>t</title></svg>${fill('</div>', half)}`,
      parserBound: true,
    },
    {
      name: 'many images in one picture',
      targets: ['image_format'],
      html: `<picture>${fill('<source type="image/png" srcset="a.png">', half)}${fill('<img src="a.png">', half)}</picture>`,
    },
    {
      name: 'deep picture nesting',
      targets: ['image_format'],
      html: fill('<picture><source type="image/webp" srcset="a.webp">', half) + fill('<img src="a.png">', half),
      parserBound: true,
    },
    {
      name: 'many meta tags',
      targets: [
        'meta_description',
        'noindex',
        'meta_viewport',
        'charset',
        'open_graph',
        'referrer_policy',
        'content_security_policy',
      ],
      html: fill(
        '<meta name="description" content=""><meta name="robots" content="nonenoindex"><meta name="viewport"><meta http-equiv="content-type" content="; ; charset"><meta property="og:x"><meta http-equiv="content-security-policy">',
        bytes,
      ),
    },
    {
      name: 'meta charset soup',
      targets: ['charset'],
      html: `${fill('<meta charset', 1024)}${fill('<meta content="charset charset = ', bytes)}`,
    },
    {
      name: 'many links',
      targets: ['in_page_links', 'social', 'unsafe_cross_origin_links', 'canonical', 'favicon'],
      html: fill('<a href="https://www.facebook.com/x" target="_blank">f</a>', bytes),
    },
    {
      name: 'long hrefs',
      targets: ['social', 'unsafe_cross_origin_links', 'mixed_content', 'http_requests'],
      html: `<a target="_blank" href="https://x.test/${fill('a', half)}">x</a><img src="http://x.test/${fill('b', half)}.png">`,
    },
    {
      name: 'many link rels',
      targets: ['favicon', 'canonical', 'http_requests', 'hreflang'],
      html: fill(
        '<link rel="icon canonical stylesheet preload alternate" hreflang="x-default-aaaaaaaa" href="http://x.test/a">',
        bytes,
      ),
    },
    {
      name: 'hreflang soup',
      targets: ['hreflang'],
      html: fill(`<link rel="alternate" hreflang="${'a-'.repeat(40)}" href="::">`, bytes),
    },
    {
      name: 'many images',
      targets: ['image_keywords', 'image_format', 'image_dimensions', 'http_requests', 'mixed_content'],
      html: fill('<img src="http://x.test/a.jpg"><img src="data:image/png;base64,AAAA">', bytes),
    },
    { name: 'huge data URL', targets: ['image_format'], html: `<img src="data:image/${fill('a', bytes)}">` },
    {
      name: 'many blocking scripts',
      targets: ['defer_javascript', 'http_requests'],
      html: `<head>${fill('<script src="/a.js" type="text/javascript"></script>', bytes)}</head>`,
    },
    {
      name: 'huge JSON-LD',
      targets: ['structured_data', 'json_ld_valid'],
      html: `<script type="application/ld+json">${fill('[', half)}${fill(']', half)}</script>`,
    },
    {
      name: 'many JSON-LD blocks',
      targets: ['structured_data', 'json_ld_valid'],
      html: fill('<script type="application/ld+json">{"@type":"T","@graph":[{"@type":"U"}]}</script>', bytes),
    },
    {
      name: 'microdata and RDFa',
      targets: ['structured_data'],
      html: fill('<div itemscope itemtype="x" typeof="y" vocab="z"></div>', bytes),
    },
    { name: 'inline styles', targets: ['inline_css'], html: fill('<b style="color:red">s</b>', bytes) },
    {
      name: 'deprecated tags',
      targets: ['deprecated_html_tags'],
      html: fill('<center><font><marquee>x</marquee></font></center>', bytes),
    },
    { name: 'lang attribute', targets: ['language'], html: `<html lang="${fill(' ', bytes)}">` },
    {
      name: 'whitespace text',
      targets: ['text_html_ratio', 'content_length'],
      html: `<p>${fill(' \u00a0\n', bytes)}</p>`,
    },
    {
      name: 'unicode words',
      targets: ['content_length', 'content_keywords'],
      html: `<title>été</title><p>${fill('été’', bytes)}</p>`,
    },
    {
      name: 'hostile headers',
      targets: [
        'server_signature',
        'hsts',
        'content_security_policy',
        'frame_protection',
        'content_type_options',
        'cache_headers',
        'text_compression',
        'brotli',
        'referrer_policy',
        'noindex',
      ],
      html: '<!DOCTYPE html><title>h</title>',
      headers: {
        server: fill('1', headerBytes),
        'x-powered-by': fill('/ ', headerBytes),
        'strict-transport-security': `max-age=${fill('9', headerBytes)}`,
        'content-security-policy': fill('; frame-ancestors', headerBytes),
        'x-frame-options': fill(' ', headerBytes),
        'x-robots-tag': fill('noindexnone', headerBytes),
        'cache-control': fill('x', headerBytes),
        'referrer-policy': fill(',', headerBytes),
        'x-content-type-options': fill(' nosniff', headerBytes),
      },
    },
    {
      name: 'hostile URL',
      targets: [
        'seo_friendly_url',
        'https_encryption',
        'http_to_https_redirect',
        '404_page',
        'page_size',
        'load_time',
        'http2',
      ],
      html: '<!DOCTYPE html><title>u</title>',
      path: `/${'A_+%20'.repeat(300)}?${'q'.repeat(100)}`,
    },
    {
      name: 'hostile robots.txt',
      targets: ['robots', 'sitemap'],
      html: '<!DOCTYPE html><title>r</title>',
      path: `/${'a'.repeat(400)}`,
      robots: `User-agent: *\n${fill(`Disallow: /${'*a'.repeat(200)}b\n`, Math.min(bytes, 400_000))}${fill('Sitemap: ', 50_000)}\n`,
    },
  ];
}
