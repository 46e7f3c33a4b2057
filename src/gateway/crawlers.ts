import { Resolver } from 'node:dns/promises';
import { LRUCache } from 'lru-cache';
import { hasToken } from './patterns.ts';
import { parseAddress } from './networks.ts';

/**
 * Search crawlers whose operators publish a way to verify them by forward-confirmed reverse
 * DNS: the client address's PTR name lies under one of `domains`, and that name resolves back
 * to the address. A User-Agent alone never verifies anything.
 */
export const SEARCH_CRAWLERS = [
  { name: 'googlebot', token: 'googlebot', domains: ['googlebot.com', 'google.com'] },
  { name: 'bingbot', token: 'bingbot', domains: ['search.msn.com'] },
  { name: 'applebot', token: 'applebot', domains: ['applebot.apple.com'] },
  { name: 'duckduckbot', token: 'duckduckbot', domains: ['duckduckgo.com'] },
  { name: 'yandexbot', token: 'yandexbot', domains: ['yandex.ru', 'yandex.net', 'yandex.com'] },
  { name: 'baiduspider', token: 'baiduspider', domains: ['baidu.com', 'baidu.jp'] },
] as const;

export type SearchCrawler = (typeof SEARCH_CRAWLERS)[number];

/** The search crawler a User-Agent claims to be, or null. */
export function claimedCrawler(lowerUa: string): SearchCrawler | null {
  for (const c of SEARCH_CRAWLERS) if (hasToken(lowerUa, c.token)) return c;
  return null;
}

function under(name: string, domain: string): boolean {
  const n = name.toLowerCase().replace(/\.$/, '');
  return n === domain || n.endsWith(`.${domain}`);
}

/** How long a verdict is kept: a confirmed crawler for 6 hours, a failed one for 10 minutes. */
const CONFIRMED_MS = 6 * 3_600_000;
const REFUSED_MS = 10 * 60_000;

export interface CrawlerVerifierOptions {
  /** Name servers (`host` or `host:port`); unset: the system's. */
  servers?: readonly string[];
  timeoutMs: number;
}

/**
 * Forward-confirmed reverse DNS with a cache per crawler and address; concurrent checks of
 * one address share one lookup. A DNS failure (timeout, SERVFAIL) counts as not verified.
 */
export class CrawlerVerifier {
  private readonly resolver: Resolver;
  private readonly verdicts = new LRUCache<string, boolean>({ max: 50_000, ttl: CONFIRMED_MS });
  private readonly pending = new Map<string, Promise<boolean>>();
  private readonly timeoutMs: number;

  constructor(opts: CrawlerVerifierOptions) {
    this.timeoutMs = opts.timeoutMs;
    this.resolver = new Resolver({ timeout: opts.timeoutMs, tries: 1 });
    if (opts.servers?.length) this.resolver.setServers([...opts.servers]);
  }

  /** Whether `ip` is really `crawler` (cached). */
  async verify(crawler: SearchCrawler, ip: string): Promise<boolean> {
    const key = `${crawler.name}|${ip}`;
    const known = this.verdicts.get(key);
    if (known !== undefined) return known;
    let running = this.pending.get(key);
    if (!running) {
      running = this.withinDeadline(this.lookup(crawler, ip))
        .catch(() => false)
        .then((ok) => {
          this.verdicts.set(key, ok, { ttl: ok ? CONFIRMED_MS : REFUSED_MS });
          this.pending.delete(key);
          return ok;
        });
      this.pending.set(key, running);
    }
    return running;
  }

  /**
   * The whole check (a PTR query and a forward query per name it lists) within one timeout,
   * however many names the PTR record holds: past it the claim is not verified. The queries
   * still under way end by the resolver's own per-query timeout.
   */
  private withinDeadline(check: Promise<boolean>): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), this.timeoutMs);
      timer.unref();
    });
    return Promise.race([check, deadline]).finally(() => clearTimeout(timer));
  }

  private async lookup(crawler: SearchCrawler, ip: string): Promise<boolean> {
    const addr = parseAddress(ip);
    if (!addr) return false;
    const plain = addr.toString();
    const names = await this.resolver.reverse(plain);
    for (const name of names.slice(0, 4)) {
      if (!crawler.domains.some((d) => under(name, d))) continue;
      const forward = addr.kind() === 'ipv4' ? await this.resolver.resolve4(name) : await this.resolver.resolve6(name);
      if (forward.some((a) => parseAddress(a)?.toNormalizedString() === addr.toNormalizedString())) return true;
    }
    return false;
  }
}
