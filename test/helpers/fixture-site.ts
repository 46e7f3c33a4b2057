import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A well-built page: most checks pass. */
export function goodPage(title = 'Fixture Garden Supplies'): string {
  const words = Array.from(
    { length: 620 },
    (_, i) => ['garden', 'supplies', 'fixture', 'tools', 'plants', 'soil'][i % 6],
  ).join(' ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><meta name="description" content="Garden supplies, tools and plants for every fixture garden.">
<link rel="canonical" href="/good"><link rel="icon" href="/favicon.ico">
<meta property="og:title" content="${title}"><meta property="og:description" content="Garden supplies">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","name":"Fixture"}</script>
<script src="/app.js" defer></script></head>
<body><h1>Welcome to the garden</h1><p>${words}</p>
<img src="/a.webp" alt="A garden" width="100" height="80">
<a href="https://twitter.com/fixture" rel="noopener" target="_blank">Twitter</a></body></html>`;
}

/** A poor page: many checks fail. */
export function poorPage(): string {
  return `<html><head><title></title></head><body><center><font>hi</font></center>
<img src="/a.png"><img src="/b.gif"><a href="http://evil.example/" target="_blank">x</a> mail me: someone@example.com
<div style="color:red">tiny</div></body></html>`;
}

export interface FixtureSite {
  url: string;
  port: number;
  /** Replace or add a route: path to handler. */
  routes: Map<string, http.RequestListener>;
  close(): Promise<void>;
}

/**
 * A local site on 127.0.0.1 serving `/good`, `/poor`, `/robots.txt`, `/sitemap.xml`, 404s
 * for anything else, plus any routes a test adds. Only loopback: nothing leaves the machine.
 */
export async function startFixtureSite(): Promise<FixtureSite> {
  const routes = new Map<string, http.RequestListener>();
  const send =
    (type: string, body: string, status = 200, headers: Record<string, string> = {}): http.RequestListener =>
    (_req, res) => {
      res.writeHead(status, { 'Content-Type': type, ...headers });
      res.end(body);
    };
  routes.set(
    '/good',
    send('text/html; charset=utf-8', goodPage(), 200, {
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'max-age=60',
    }),
  );
  routes.set(
    '/poor',
    send('text/html', poorPage(), 200, { Server: 'Apache/2.4.1 (Unix)', 'X-Powered-By': 'PHP/5.6.0' }),
  );
  routes.set('/robots.txt', send('text/plain', 'User-agent: *\nAllow: /\nSitemap: /sitemap.xml\n'));
  routes.set(
    '/sitemap.xml',
    send(
      'application/xml',
      '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>/good</loc></url></urlset>',
    ),
  );
  routes.set('/json', send('application/json', '{"not":"html"}'));
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const handler = routes.get(path);
    if (handler) return handler(req, res);
    res.writeHead(404, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><title>Not found</title><h1>Not found</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    routes,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
