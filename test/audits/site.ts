/**
 * A small local site for audits: a robots.txt rule, a sitemap index, links, and a page that
 * never answers. Every path's hits are counted, so a test can tell what the crawler fetched.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { goodPage, poorPage } from '../helpers/fixture-site.ts';

export interface AuditSite {
  url: string;
  hits: Map<string, number>;
  /** Serve `html` at `path` from now on. */
  set(path: string, html: string): void;
  close(): Promise<void>;
}

const links = (...paths: string[]) => paths.map((p) => `<a href="${p}">${p}</a>`).join(' ');

/** `/`, `/a`, `/b`, `/c` and `/slow` are in scope; `/private/x` is disallowed by robots.txt. */
export async function startAuditSite(): Promise<AuditSite> {
  const pages = new Map<string, string>([
    [
      '/',
      goodPage('Home').replace('</body>', `${links('/a', '/b#top', '/private/x', 'https://elsewhere.test/')}</body>`),
    ],
    ['/a', goodPage('A').replace('</body>', `${links('/c', '/a?x', '/')}</body>`)],
    ['/a?x', goodPage('A again')],
    ['/b', goodPage('B')],
    ['/c', goodPage('C')],
    ['/private/x', goodPage('Private')],
  ]);
  const hits = new Map<string, number>();
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const key = url.pathname + url.search;
    hits.set(key, (hits.get(key) ?? 0) + 1);
    const port = (server.address() as AddressInfo).port;
    const origin = `http://127.0.0.1:${port}`;
    if (key === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end(`User-agent: *\nDisallow: /private\nDisallow: /a?x\nSitemap: ${origin}/sitemap_index.xml\n`);
    }
    if (key === '/sitemap_index.xml') {
      res.writeHead(200, { 'content-type': 'application/xml' });
      return res.end(
        `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${origin}/sitemap-pages.xml</loc></sitemap></sitemapindex>`,
      );
    }
    if (key === '/sitemap-pages.xml') {
      res.writeHead(200, { 'content-type': 'application/xml' });
      return res.end(
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${origin}/</loc></url><url><loc>${origin}/slow</loc></url></urlset>`,
      );
    }
    if (key === '/slow') return; // never answers: the analyzer's deadline fails it
    const html = pages.get(key);
    if (html === undefined) {
      res.writeHead(404, { 'content-type': 'text/html' });
      return res.end('<!doctype html><title>Not found</title>');
    }
    // A little latency, so a run is seen under way.
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html);
    }, 150);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    set: (path, html) => void pages.set(path, html),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export { poorPage };
