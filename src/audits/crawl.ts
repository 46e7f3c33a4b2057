/**
 * What a site audit reads besides its pages' analyses: robots.txt (obeyed), the sitemap (index
 * files too) and each page's same-host links. Every fetch goes through the analyzer's
 * {@link Fetcher}, so through its SSRF guard, redirect checks, size caps and timeouts.
 */
import { robotsParser } from '../analyzer/robots-parser.ts';
import * as cheerio from 'cheerio';
import { Fetcher } from '../analyzer/fetcher.ts';
import { robotsAgentToken, type AnalyzerOptions } from '../analyzer/options.ts';

/** What a crawl may visit: same host as the start URL, allowed by robots.txt and the path filters. */
export interface CrawlScope {
  /** `scheme://host[:port]` of the start URL. */
  origin: string;
  include: string[];
  exclude: string[];
  /** robots.txt's text; empty when there is none. */
  robots: string;
  /** The analyzer's User-Agent (robots.txt groups are matched on its product token). */
  userAgent: string;
}

/**
 * `*` in a pattern matches any run of characters (`/blog/*`); everything else is literal. A
 * path matches when the whole path does. Iterative, so no pattern can make it backtrack.
 */
export function matchesPattern(path: string, pattern: string): boolean {
  let p = 0;
  let s = 0;
  let star = -1;
  let mark = 0;
  while (s < path.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === path[s]) {
      p++;
      s++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      mark = s;
    } else if (star >= 0) {
      p = star + 1;
      s = ++mark;
    } else return false;
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

/** The URL as a crawl keeps it (no fragment), or undefined when it is outside `scope`. */
export function inScope(href: string, scope: CrawlScope, base?: string): string | undefined {
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== scope.origin) return undefined;
  if (url.username || url.password || url.href.length > 2048) return undefined;
  url.hash = '';
  const path = url.pathname;
  if (scope.include.length && !scope.include.some((p) => matchesPattern(path, p))) return undefined;
  if (scope.exclude.some((p) => matchesPattern(path, p))) return undefined;
  if (scope.robots) {
    const robots = robotsParser(`${scope.origin}/robots.txt`, scope.robots);
    if (robots.isDisallowed(url.href, robotsAgentToken(scope.userAgent))) return undefined;
  }
  return url.href;
}

const MAX_SITEMAPS = 20;

/** One crawl's fetches; {@link close} when done. */
export class Crawler {
  readonly #fetcher: Fetcher;

  constructor(options: AnalyzerOptions) {
    this.#fetcher = new Fetcher(options);
  }

  async #text(url: string): Promise<string | undefined> {
    try {
      const res = await this.#fetcher.fetch(url, { requireSuccess: true, truncate: true, maxBytes: 2 * 1024 * 1024 });
      return res.body ? Buffer.from(res.body.bytes).toString('utf8') : undefined;
    } catch {
      return undefined;
    }
  }

  /** robots.txt of `origin` ('' when there is none or it cannot be read). */
  async robots(origin: string): Promise<string> {
    return (await this.#text(`${origin}/robots.txt`)) ?? '';
  }

  /**
   * Page URLs the sitemaps list: those robots.txt names, else `/sitemap.xml`; sitemap index
   * files are followed (at most 20 sitemaps in all). At most `limit` URLs, in their order.
   */
  async sitemapPages(scope: CrawlScope, limit: number): Promise<string[]> {
    const named = scope.robots ? robotsParser(`${scope.origin}/robots.txt`, scope.robots).getSitemaps() : [];
    const pending = named.length ? named : [`${scope.origin}/sitemap.xml`];
    const seen = new Set<string>();
    const pages = new Set<string>();
    const sameOrigin = { ...scope, include: [], exclude: [], robots: '' };
    while (pending.length && seen.size < MAX_SITEMAPS && pages.size < limit) {
      const sitemap = inScope(pending.shift()!, sameOrigin, scope.origin);
      if (!sitemap || seen.has(sitemap)) continue;
      seen.add(sitemap);
      const xml = await this.#text(sitemap);
      if (!xml) continue;
      const $ = cheerio.load(xml, { xml: true });
      $('sitemapindex > sitemap > loc').each((_, el) => void pending.push($(el).text().trim()));
      $('urlset > url > loc').each((_, el) => {
        const page = inScope($(el).text().trim(), scope);
        if (page && pages.size < limit) pages.add(page);
      });
    }
    return [...pages];
  }

  /**
   * The same-host links of the HTML page at `url`, in scope (`rel=nofollow` links are not
   * followed). Rejects with the analyzer's error when the page cannot be fetched.
   */
  async links(url: string, scope: CrawlScope): Promise<string[]> {
    const res = await this.#fetcher.fetch(url, { requireHtml: true, requireSuccess: true, truncate: true });
    const html = res.body ? Buffer.from(res.body.bytes).toString('utf8') : '';
    const $ = cheerio.load(html);
    let base = res.url.href;
    const declared = $('base[href]').attr('href');
    if (declared) {
      try {
        base = new URL(declared, base).href;
      } catch {
        // an unusable <base> is ignored, as browsers do
      }
    }
    const found = new Set<string>();
    $('a[href]').each((_, el) => {
      const rel = ($(el).attr('rel') ?? '').toLowerCase().split(' ');
      if (rel.includes('nofollow')) return;
      const link = inScope($(el).attr('href') ?? '', scope, base);
      if (link) found.add(link);
    });
    return [...found];
  }

  close(): Promise<void> {
    return this.#fetcher.close();
  }
}
