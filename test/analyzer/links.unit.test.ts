/**
 * A crawl's reads of links and sitemaps (src/analyzer/links.ts): in scope, robots.txt obeyed,
 * and bounded by count, by `limit` and by their soft time budget, in a worker thread of the
 * check pool as the service runs them.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CheckPool } from '../../src/analyzer/check-pool.ts';
import { readLinks, type LinkScope, type LinkTask } from '../../src/analyzer/links.ts';
import { hugeRobots } from '../audits/hostile-site.ts';

const origin = 'http://site.test';
const scope: LinkScope = {
  origin,
  include: [],
  exclude: ['/skip/*'],
  robots: 'User-agent: *\nDisallow: /private\n',
  userAgent: 'Mozilla/5.0 (compatible; WebsiteAnalyzer/1.0)',
};
const task = (over: Partial<LinkTask>): LinkTask => ({
  kind: 'html',
  text: '',
  url: `${origin}/`,
  scope,
  limit: 100,
  maxCandidates: 5000,
  softBudgetMs: 10_000,
  ...over,
});
const anchors = (hrefs: string[]) => `<html><body>${hrefs.map((h) => `<a href="${h}">x</a>`).join('')}</body></html>`;

describe('readLinks', () => {
  it('keeps same-origin links in scope, once, without fragments', () => {
    const html = anchors(['/a', '/a#top', 'b', '/private/x', '/skip/y', 'https://other.test/', 'mailto:x@y']);
    const nofollow = '<a rel="external nofollow" href="/c">c</a>';
    const read = readLinks(task({ text: html.replace('</body>', `${nofollow}</body>`) }));
    expect(read.urls).toEqual([`${origin}/a`, `${origin}/b`]);
    expect(read.truncated).toBe(false);
  });

  it('stops at `limit` and at `maxCandidates`', () => {
    const html = anchors(Array.from({ length: 50 }, (_, i) => `/p${i}`));
    expect(readLinks(task({ text: html, limit: 3 })).urls).toHaveLength(3);
    const capped = readLinks(task({ text: html, maxCandidates: 10 }));
    expect(capped.urls).toHaveLength(10);
    expect(capped.truncated).toBe(true);
  });

  it('reads a sitemap index and a sitemap, and the sitemaps robots.txt names (same origin only)', () => {
    const index = readLinks(
      task({
        kind: 'sitemap',
        text: `<sitemapindex><sitemap><loc>${origin}/s1.xml</loc></sitemap><sitemap><loc>https://evil.test/s.xml</loc></sitemap></sitemapindex>`,
      }),
    );
    expect(index.sitemaps).toEqual([`${origin}/s1.xml`]);
    const urls = readLinks(
      task({
        kind: 'sitemap',
        text: `<urlset><url><loc>${origin}/x</loc></url><url><loc>${origin}/private/y</loc></url></urlset>`,
      }),
    );
    expect(urls.urls).toEqual([`${origin}/x`]);
    const robots = readLinks(
      task({
        kind: 'robots',
        scope: { ...scope, robots: `Sitemap: ${origin}/a.xml\nSitemap: https://evil.test/b.xml\n` },
      }),
    );
    expect(robots.sitemaps).toEqual([`${origin}/a.xml`]);
  });

  it('returns what it has once its soft budget is spent, on a robots.txt made to be slow', () => {
    const slowScope = { ...scope, robots: hugeRobots(500 * 1024, origin) };
    const html = anchors(Array.from({ length: 5000 }, (_, i) => `/page/${i}`));
    const read = readLinks(task({ text: html, scope: slowScope, limit: 5000, softBudgetMs: 200 }));
    expect(read.truncated).toBe(true);
    expect(read.urls.length).toBeGreaterThan(0);
    expect(read.urls.length).toBeLessThan(5000);
  });
});

describe('CheckPool.links', () => {
  const pool = new CheckPool({ threads: 1 });
  afterAll(() => pool.close());

  it('runs the read in a worker thread', async () => {
    const read = await pool.links(task({ text: anchors(['/a', '/private/b']) }), 10_000);
    expect(read.urls).toEqual([`${origin}/a`]);
  });
});
