/**
 * What a site audit reads besides its pages' analyses: robots.txt (obeyed), the sitemap (index
 * files too) and each page's same-origin links. Every fetch goes through the analyzer's
 * {@link Fetcher}, so through its SSRF guard, redirect checks, size caps and timeouts; every
 * parse (robots.txt, sitemap XML, HTML links) runs in the analyzer's worker threads
 * ({@link ReportAnalyzer.links}), bounded in count and time, so nothing a site sends is parsed
 * on the event loop.
 */
import { ROBOTS_MAX_BYTES } from '../analyzer/auxiliary.ts';
import { Fetcher } from '../analyzer/fetcher.ts';
import type { LinkScope, LinkTask } from '../analyzer/links.ts';
import type { AnalyzerOptions } from '../analyzer/options.ts';
import type { ReportAnalyzer } from '../reports/analysis.ts';

export type { LinkScope as CrawlScope } from '../analyzer/links.ts';

/** Sitemaps (index files and their children) one discovery reads at most. */
const MAX_SITEMAPS = 20;
/** Largest sitemap file read (the sitemaps protocol's cap is 50 MB uncompressed; ours is lower). */
const SITEMAP_MAX_BYTES = 2 * 1024 * 1024;

/** One crawl's fetches; {@link close} when done. */
export class Crawler {
  readonly #fetcher: Fetcher;
  readonly #analyzer: Pick<ReportAnalyzer, 'links'>;
  readonly #maxLinks: number;
  readonly #signal?: AbortSignal;

  /**
   * `signal` bounds the whole crawl (a run's discovery deadline): once it aborts, fetches stop
   * and discovery returns what it found.
   */
  constructor(
    options: AnalyzerOptions,
    analyzer: Pick<ReportAnalyzer, 'links'>,
    limits: { maxLinks: number },
    signal?: AbortSignal,
  ) {
    this.#fetcher = new Fetcher(options, signal);
    this.#analyzer = analyzer;
    this.#maxLinks = limits.maxLinks;
    this.#signal = signal;
  }

  async #text(url: string, maxBytes: number): Promise<string | undefined> {
    try {
      const res = await this.#fetcher.fetch(url, { requireSuccess: true, truncate: true, maxBytes });
      return res.body ? Buffer.from(res.body.bytes).toString('utf8') : undefined;
    } catch {
      return undefined;
    }
  }

  #read(kind: LinkTask['kind'], text: string, url: string, scope: LinkScope, limit: number) {
    return this.#analyzer.links({ kind, text, url, scope, limit, maxCandidates: this.#maxLinks }, this.#signal);
  }

  /** robots.txt of `origin`, its first {@link ROBOTS_MAX_BYTES} ('' when there is none or it cannot be read). */
  async robots(origin: string): Promise<string> {
    return (await this.#text(`${origin}/robots.txt`, ROBOTS_MAX_BYTES)) ?? '';
  }

  /**
   * Page URLs the sitemaps list: those robots.txt names, else `/sitemap.xml`; sitemap index
   * files are followed (at most 20 sitemaps in all). At most `limit` URLs, in their order.
   * Reading stops once it has `limit`, or when the crawl's signal aborts (then it returns
   * what it found).
   */
  async sitemapPages(scope: LinkScope, limit: number): Promise<string[]> {
    const pages = new Set<string>();
    try {
      const named = scope.robots ? (await this.#read('robots', '', scope.origin, scope, 0)).sitemaps : [];
      const pending = named.length ? named : [`${scope.origin}/sitemap.xml`];
      const seen = new Set<string>();
      while (pending.length && seen.size < MAX_SITEMAPS && pages.size < limit && !this.#signal?.aborted) {
        const sitemap = pending.shift()!;
        if (seen.has(sitemap)) continue;
        seen.add(sitemap);
        const xml = await this.#text(sitemap, SITEMAP_MAX_BYTES);
        if (!xml) continue;
        const read = await this.#read('sitemap', xml, sitemap, scope, limit - pages.size);
        pending.push(...read.sitemaps);
        for (const page of read.urls) pages.add(page);
      }
    } catch (err) {
      if (!this.#signal?.aborted) throw err;
    }
    return [...pages].slice(0, limit);
  }

  /**
   * The same-origin links of the HTML page at `url`, in scope (`rel=nofollow` links are not
   * followed), at most `limit`. Rejects with the analyzer's error when the page cannot be
   * fetched.
   */
  async links(url: string, scope: LinkScope, limit: number): Promise<string[]> {
    if (limit <= 0) return [];
    const res = await this.#fetcher.fetch(url, { requireHtml: true, requireSuccess: true, truncate: true });
    const html = res.body ? Buffer.from(res.body.bytes).toString('utf8') : '';
    return (await this.#read('html', html, res.url.href, scope, limit)).urls;
  }

  close(): Promise<void> {
    return this.#fetcher.close();
  }
}
