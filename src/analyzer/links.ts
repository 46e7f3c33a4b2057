/**
 * The URLs a crawl may visit, read from a page's links or a sitemap: parsing, robots.txt and
 * the path filters. It runs in a check-pool worker thread ({@link CheckPool.links}), never on
 * the event loop: a hostile robots.txt (tens of thousands of wildcard rules) costs milliseconds
 * per URL, and a page or sitemap can hold tens of thousands of URLs. Each read is bounded twice:
 * by count (`maxCandidates`) and by a soft deadline after which it returns what it has.
 */
import * as cheerio from 'cheerio';
import { robotsAgentToken } from './thresholds.ts';
import { robotsParser } from './robots-parser.ts';

/** What a crawl may visit: same origin as the start URL, allowed by robots.txt and the path filters. */
export interface LinkScope {
  /** `scheme://host[:port]` of the start URL. */
  origin: string;
  include: string[];
  exclude: string[];
  /** robots.txt's text; empty when there is none (or it is not to be obeyed). */
  robots: string;
  /** The analyzer's User-Agent (robots.txt groups are matched on its product token). */
  userAgent: string;
}

/**
 * One read: an HTML page's links, a sitemap's entries, the URLs of a list (`text`, one a line),
 * or the sitemaps a robots.txt names (`text` unused; the scope's robots.txt is read).
 * Structured-clonable.
 */
export interface LinkTask {
  kind: 'html' | 'sitemap' | 'list' | 'robots';
  text: string;
  /** The document's own URL (links resolve against it, or its `<base>`). */
  url: string;
  scope: LinkScope;
  /** In-scope URLs wanted at most; reading stops when it has them. */
  limit: number;
  /** URLs looked at, at most (in scope or not). */
  maxCandidates: number;
  /** Time the read may take in its thread, ms; past it the read returns what it has. */
  softBudgetMs: number;
}

/** What a read found. */
export interface LinkResult {
  /** In-scope URLs (no fragment), in document order, without duplicates. */
  urls: string[];
  /** For a sitemap index or a robots.txt: the sitemaps it names (same origin only, in its order). */
  sitemaps: string[];
  /** True when the count or time bound stopped the read before the document's end. */
  truncated: boolean;
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

type Robots = ReturnType<typeof robotsParser>;

/**
 * Parsed robots.txt files of this thread, by text: a run's pages share one robots.txt, parsed
 * once per thread rather than once per URL or per page.
 */
const parsedRobots = new Map<string, Robots>();
const PARSED_ROBOTS_KEPT = 4;

function robotsOf(scope: LinkScope): Robots {
  let robots = parsedRobots.get(scope.robots);
  if (robots) {
    parsedRobots.delete(scope.robots); // kept as the most recent
  } else {
    robots = robotsParser(`${scope.origin}/robots.txt`, scope.robots);
    if (parsedRobots.size >= PARSED_ROBOTS_KEPT) parsedRobots.delete(parsedRobots.keys().next().value!);
  }
  parsedRobots.set(scope.robots, robots);
  return robots;
}

/** The URL as a crawl keeps it (no fragment), or undefined when it is outside `scope`. */
export function inScope(href: string, scope: LinkScope, base?: string): string | undefined {
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
  if (scope.robots && robotsOf(scope).isDisallowed(url.href, robotsAgentToken(scope.userAgent))) return undefined;
  return url.href;
}

/** Collects candidates under the task's bounds. */
class Collector {
  readonly #task: LinkTask;
  readonly #deadline: number;
  readonly #found = new Set<string>();
  #looked = 0;
  truncated = false;

  constructor(task: LinkTask) {
    this.#task = task;
    this.#deadline = performance.now() + task.softBudgetMs;
  }

  /** False once a bound is reached: stop reading. */
  offer(href: string, base?: string): boolean {
    if (this.#found.size >= this.#task.limit) return false;
    if (this.#looked >= this.#task.maxCandidates || (this.#looked % 32 === 0 && performance.now() > this.#deadline)) {
      this.truncated = true;
      return false;
    }
    this.#looked++;
    const url = inScope(href, this.#task.scope, base);
    if (url) this.#found.add(url);
    return this.#found.size < this.#task.limit;
  }

  get urls(): string[] {
    return [...this.#found];
  }
}

function htmlLinks(task: LinkTask): LinkResult {
  const $ = cheerio.load(task.text);
  let base = task.url;
  const declared = $('base[href]').attr('href');
  if (declared) {
    try {
      base = new URL(declared, base).href;
    } catch {
      // an unusable <base> is ignored, as browsers do
    }
  }
  const collector = new Collector(task);
  for (const el of $('a[href]').toArray()) {
    const rel = ($(el).attr('rel') ?? '').toLowerCase().split(/\s+/);
    if (rel.includes('nofollow')) continue;
    if (!collector.offer($(el).attr('href') ?? '', base)) break;
  }
  return { urls: collector.urls, sitemaps: [], truncated: collector.truncated };
}

/** The same-origin URLs among `hrefs` (the first `max` looked at), for sitemaps to read. */
function sameOriginOf(hrefs: string[], task: LinkTask): string[] {
  const sameOrigin = { ...task.scope, include: [], exclude: [], robots: '' };
  return hrefs
    .slice(0, task.maxCandidates)
    .map((href) => inScope(href, sameOrigin, task.scope.origin))
    .filter((url): url is string => url !== undefined);
}

function sitemapEntries(task: LinkTask): LinkResult {
  const $ = cheerio.load(task.text, { xml: true });
  const named = $('sitemapindex > sitemap > loc')
    .toArray()
    .slice(0, task.maxCandidates)
    .map((el) => $(el).text().trim());
  const sitemaps = sameOriginOf(named, task);
  const collector = new Collector(task);
  for (const el of $('urlset > url > loc').toArray()) {
    if (!collector.offer($(el).text().trim())) break;
  }
  return { urls: collector.urls, sitemaps, truncated: collector.truncated };
}

/** Runs one read (in a worker thread; in-thread only in tests of this module). */
export function readLinks(task: LinkTask): LinkResult {
  if (task.kind === 'html') return htmlLinks(task);
  if (task.kind === 'sitemap') return sitemapEntries(task);
  if (task.kind === 'list') {
    const collector = new Collector(task);
    for (const line of task.text.split('\n')) if (!collector.offer(line.trim(), task.url)) break;
    return { urls: collector.urls, sitemaps: [], truncated: collector.truncated };
  }
  const named = task.scope.robots ? robotsOf(task.scope).getSitemaps() : [];
  return { urls: [], sitemaps: sameOriginOf(named, task), truncated: false };
}
