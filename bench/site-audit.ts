/**
 * Site audits: pages per minute for a local site (500 pages by default), raw and rendered, on
 * one instance and on three (real processes, `node --import tsx bin/server.ts`, one PostgreSQL
 * and one Redis), printed beside one-at-a-time report creation (`POST /api/v1/reports`, one
 * after the other) against the same instances in the same run.
 *
 *   TEST_DATABASE_URL=postgres://... TEST_REDIS_URL=redis://... npx tsx bench/site-audit.ts \
 *     [--pages 500] [--instances 1,3] [--modes raw,rendered] [--sequential 30]
 *
 * Rendered needs Chromium (ANALYZER_CHROMIUM_PATH); without it that mode is skipped.
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { redisDbUrl, startCluster } from '../test/helpers/cluster.ts';
import { goodPage } from '../test/helpers/fixture-site.ts';
import { request } from '../test/helpers/http.ts';

/** Audit pages each instance works on at once (the service's default). */
const AUDIT_WORKERS = 4;

/** Logical Redis database of this benchmark. */
const REDIS_DB = 9;

function arg(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 && process.argv[at + 1] ? process.argv[at + 1] : fallback;
}

/** `/p0`...: each page links to the next three and the sitemap lists them all. */
async function startSite(pages: number) {
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end(`User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n`);
    }
    if (path === '/sitemap.xml') {
      const urls = Array.from({ length: pages }, (_, i) => `<url><loc>${origin}/p${i}</loc></url>`).join('');
      res.writeHead(200, { 'content-type': 'application/xml' });
      return res.end(
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`,
      );
    }
    const n = Number(/^\/p(\d+)$/.exec(path)?.[1] ?? NaN);
    if (!(n >= 0 && n < pages)) {
      res.writeHead(404, { 'content-type': 'text/html' });
      return res.end('<!doctype html><title>Not found</title>');
    }
    const links = [1, 2, 3].map((d) => `<a href="/p${(n + d) % pages}">next</a>`).join(' ');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(goodPage(`Page ${n}`).replace('</body>', `${links}</body>`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

interface Figure {
  instances: number;
  mode: string;
  auditPagesPerMinute: number;
  auditPages: number;
  sequentialPagesPerMinute: number;
  sequentialPages: number;
}

export async function main(): Promise<Figure[]> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  const redis = process.env.TEST_REDIS_URL;
  if (!adminUrl || !redis) {
    console.log('skipped: set TEST_DATABASE_URL and TEST_REDIS_URL (several instances share them)');
    return [];
  }
  const pages = Number(arg('pages', '500'));
  const sequential = Number(arg('sequential', '30'));
  const counts = arg('instances', '1,3').split(',').map(Number);
  const chromium = process.env.ANALYZER_CHROMIUM_PATH ?? '/usr/bin/chromium';
  const modes = arg('modes', 'raw,rendered')
    .split(',')
    .filter((m) => m === 'raw' || existsSync(chromium));
  const site = await startSite(pages);
  const figures: Figure[] = [];
  try {
    for (const instances of counts) {
      for (const mode of modes) {
        const cluster = await startCluster({
          instances,
          adminUrl,
          redisUrl: redisDbUrl(redis, REDIS_DB),
          env: {
            ANALYZER_ALLOW_PRIVATE: 'true',
            ANALYZER_RENDER: mode === 'raw' ? 'never' : 'always',
            AUDIT_MAX_PAGES: String(pages),
            ANALYZER_CHROMIUM_PATH: chromium,
            // A key's share holds across the instances: one per page worker of every instance,
            // so that the audit's owner is not what holds the audit back.
            ANALYZER_KEY_CONCURRENCY: String(instances * AUDIT_WORKERS),
            AUDIT_WORKERS: String(AUDIT_WORKERS),
            AUDIT_HOST_CONCURRENCY: String(instances * AUDIT_WORKERS),
            AUDIT_HOST_DELAY_MS: '0',
            QUEUE_MONITOR_SECONDS: process.env.QUEUE_MONITOR_SECONDS ?? '10',
            API_RATE_LIMIT: '100000',
            LOG_LEVEL: 'warn',
          },
        });
        try {
          const key = cluster.apiKey;
          // One report on each instance first, so neither figure pays for starting the analyzer.
          for (const url of cluster.urls) {
            await request(`${url}/api/v1/reports`, { method: 'POST', key, json: { url: `${site.url}/p0` } });
          }
          // One at a time: each report answered before the next is asked, spread over the instances.
          const seqStarted = performance.now();
          for (let i = 0; i < sequential; i++) {
            const res = await request(`${cluster.pick()}/api/v1/reports`, {
              method: 'POST',
              key,
              json: { url: `${site.url}/p${i}` },
            });
            if (res.status !== 201) throw new Error(`report creation answered ${res.status}`);
          }
          const seqMinutes = (performance.now() - seqStarted) / 60_000;
          const started = performance.now();
          let created = await request(`${cluster.urls[0]}/api/v1/audits`, {
            method: 'POST',
            key,
            json: { url: `${site.url}/p0`, max_pages: pages },
          });
          // The queue starts while the instance starts serving: 503 until it runs.
          for (let i = 0; i < 120 && created.status === 503; i++) {
            await new Promise((r) => setTimeout(r, 500));
            created = await request(`${cluster.urls[0]}/api/v1/audits`, {
              method: 'POST',
              key,
              json: { url: `${site.url}/p0`, max_pages: pages },
            });
          }
          if (created.status !== 202) throw new Error(`audit creation answered ${created.status}`);
          let audit = created.body.data;
          while (audit.status === 'queued' || audit.status === 'running') {
            await new Promise((r) => setTimeout(r, 500));
            audit = (await request(`${cluster.pick()}/api/v1/audits/${audit.id}`, { key })).body.data;
          }
          const minutes = (performance.now() - started) / 60_000;
          figures.push({
            instances,
            mode,
            auditPages: audit.progress.done,
            auditPagesPerMinute: Math.round(audit.progress.done / minutes),
            sequentialPages: sequential,
            sequentialPagesPerMinute: Math.round(sequential / seqMinutes),
          });
        } finally {
          await cluster.stop();
        }
      }
    }
  } finally {
    await site.close();
  }
  console.log(`site audit of ${pages} local pages (pages per minute):`);
  console.table(figures);
  return figures;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
