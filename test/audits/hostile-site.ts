/**
 * Sites an attacker's API key audits, as the attacker would build them: a robots.txt of tens of
 * thousands of wildcard rules beside a large sitemap, sitemaps that send a byte a second, pages
 * that take seconds each, and webhook receivers that never answer.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { goodPage } from '../helpers/fixture-site.ts';

export interface HostileSite {
  url: string;
  hits: Map<string, number>;
  close(): Promise<void>;
}

export interface HostileSiteOptions {
  /** robots.txt size in bytes (wildcard rules, `Disallow: /blocked` first); 0 for none. */
  robotsBytes?: number;
  /** Page URLs the sitemap lists (`/page/N`, and `/blocked/N` every tenth). */
  sitemapUrls?: number;
  /** Sitemaps robots.txt names that each send one byte a second, forever. */
  tricklingSitemaps?: number;
  /** Time each page takes to answer, ms. */
  pageDelayMs?: number;
}

/** A robots.txt of about `bytes`: `Disallow: /blocked`, then wildcard rules that match nothing. */
export function hugeRobots(bytes: number, origin: string): string {
  const lines = ['User-agent: *', 'Disallow: /blocked', `Sitemap: ${origin}/sitemap.xml`];
  let size = lines.join('\n').length;
  for (let i = 0; size < bytes; i++) {
    const line = `Disallow: /p${i}/*/x${i}*.html$`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n') + '\n';
}

export async function startHostileSite(options: HostileSiteOptions): Promise<HostileSite> {
  const hits = new Map<string, number>();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  // Made before the site serves, so the test's own process does not build it mid-measurement.
  let robots = options.robotsBytes ? hugeRobots(options.robotsBytes, 'ORIGIN') : '';
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (path === '/robots.txt') {
      robots = robots.replace('ORIGIN', origin);
      const trickling = Array.from(
        { length: options.tricklingSitemaps ?? 0 },
        (_, i) => `Sitemap: ${origin}/slow-${i}.xml`,
      );
      if (!robots && !trickling.length) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end(trickling.length ? `User-agent: *\nAllow: /\n${trickling.join('\n')}\n` : robots);
    }
    if (path.startsWith('/slow-')) {
      res.writeHead(200, { 'content-type': 'application/xml' });
      const timer = setInterval(() => res.write(' '), 1000);
      timers.add(timer);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (path === '/sitemap.xml') {
      const n = options.sitemapUrls ?? 0;
      const locs = Array.from(
        { length: n },
        (_, i) => `<url><loc>${origin}/${i % 10 === 9 ? 'blocked' : 'page'}/${i}</loc></url>`,
      );
      res.writeHead(200, { 'content-type': 'application/xml' });
      return res.end(
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.join('')}</urlset>`,
      );
    }
    const answer = () => {
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(goodPage(`Page ${path}`));
    };
    if (options.pageDelayMs) {
      const timer = setTimeout(answer, options.pageDelayMs);
      timers.add(timer);
    } else answer();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () =>
      new Promise((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface DeadReceiver {
  url: string;
  /** Requests received. */
  requests(): number;
  /** Most requests open at once. */
  mostAtOnce(): number;
  close(): Promise<void>;
}

/** A webhook receiver that accepts connections and never answers. */
export async function startDeadReceiver(): Promise<DeadReceiver> {
  let count = 0;
  let open = 0;
  let most = 0;
  const sockets = new Set<Socket>();
  const server = http.createServer((req) => {
    count++; // never answered
    most = Math.max(most, ++open);
    req.socket.on('close', () => open--);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    requests: () => count,
    mostAtOnce: () => most,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
