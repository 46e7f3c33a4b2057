/**
 * Auxiliary fetches beside the page: robots.txt, a random path (does the site answer 404?),
 * the sitemap, and the http:// variant of an https page. They run in parallel; a failure
 * is recorded and only fails the checks that use it.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { decodeHtml } from './body.ts';
import type { Fetcher, FetchedResponse } from './fetcher.ts';
import type { AuxiliaryFetch, AuxiliaryResults } from './auxiliary-results.ts';

/** robots.txt is read up to this size, as Google reads it (500 KiB); rules past it are ignored. */
export const ROBOTS_MAX_BYTES = 500 * 1024;
const sitemapMaxBytes = 256 * 1024;

async function attempt(
  url: string,
  run: () => Promise<FetchedResponse>,
): Promise<{ fetch: AuxiliaryFetch; response?: FetchedResponse }> {
  try {
    const response = await run();
    return { fetch: { url, status: response.status, finalUrl: response.url.href }, response };
  } catch (err) {
    if (err instanceof Error && err.name === 'AbortError') throw err;
    return { fetch: { url, error: err instanceof Error ? err.message : String(err) } };
  }
}

/** `Sitemap:` URLs in a robots.txt. */
export function sitemapsFromRobots(text: string, base: URL): string[] {
  const urls: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*sitemap\s*:\s*(\S+)/i.exec(line);
    if (!match) continue;
    try {
      urls.push(new URL(match[1], base).href);
    } catch {
      // ignore malformed lines
    }
  }
  return urls;
}

/** Whether a response body looks like a sitemap (XML urlset/sitemapindex, gzip, or a plain URL list). */
export function looksLikeSitemap(status: number, contentType: string, body: string): boolean {
  if (status < 200 || status > 299) return false;
  if (/<(urlset|sitemapindex)\b/i.test(body)) return true;
  if (/gzip/i.test(contentType)) return true;
  return /text\/plain/i.test(contentType) && /^\s*https?:\/\//i.test(body);
}

/**
 * Run the auxiliary fetches for a page whose final URL is `page`, all within `budgetMs`
 * (robots.txt and the sitemap, fetched one after the other, share it).
 */
export async function fetchAuxiliary(fetcher: Fetcher, page: URL, budgetMs: number): Promise<AuxiliaryResults> {
  const deadline = performance.now() + budgetMs;
  const remaining = (): number => Math.max(1, deadline - performance.now());
  const origin = page.origin;
  const robotsUrl = `${origin}/robots.txt`;
  const missingUrl = `${origin}/this-page-should-not-exist-${randomBytes(8).toString('hex')}`;

  const robotsAndSitemap = (async () => {
    const robots = await attempt(robotsUrl, () =>
      fetcher.fetch(robotsUrl, { maxBytes: ROBOTS_MAX_BYTES, truncate: true, timeoutMs: remaining() }),
    );
    let text: string | undefined;
    const res = robots.response;
    if (res?.body && res.status >= 200 && res.status <= 299)
      text = decodeHtml(res.body.bytes, res.headers['content-type']);
    const declared = text ? sitemapsFromRobots(text, page) : [];
    const sitemapUrl = declared[0] ?? `${origin}/sitemap.xml`;
    const sitemap = await attempt(sitemapUrl, () =>
      fetcher.fetch(sitemapUrl, { maxBytes: sitemapMaxBytes, truncate: true, timeoutMs: remaining() }),
    );
    const sres = sitemap.response;
    const found = sres?.body
      ? looksLikeSitemap(
          sres.status,
          sres.headers['content-type'] ?? '',
          sres.body.bytes.subarray(0, 4096).toString('utf8'),
        )
      : false;
    return {
      robots: { ...robots.fetch, text },
      sitemap: { ...sitemap.fetch, source: declared.length ? ('robots.txt' as const) : ('default' as const), found },
    };
  })();

  const notFound = attempt(missingUrl, () => fetcher.fetch(missingUrl, { skipBody: true, timeoutMs: remaining() }));

  let httpVariant: Promise<{ fetch: AuxiliaryFetch }> | undefined;
  if (page.protocol === 'https:') {
    const variant = new URL(page.href);
    variant.protocol = 'http:';
    variant.port = '';
    httpVariant = attempt(variant.href, () => fetcher.fetch(variant.href, { skipBody: true, timeoutMs: remaining() }));
  }

  const [rs, nf, hv] = await Promise.all([robotsAndSitemap, notFound, httpVariant]);
  return { ...rs, notFound: nf.fetch, httpVariant: hv?.fetch };
}
