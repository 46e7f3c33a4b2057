// Siteverify throughput: requests/s and p99 with fresh tokens at 64 connections, beside a
// bare Koa JSON endpoint measured in the same run. Target: >= 0.5 of the baseline.
// Run: npx tsx bench/siteverify.ts   (BENCH_REDIS_URL=redis://127.0.0.1:6379 for Redis)
import { randomBytes } from 'node:crypto';
import { sealToken, newTokenId } from '../src/captcha/tokens.ts';
import { startChild } from './lib/child.ts';
import { fmt, runLoad, type LoadResult } from './lib/load.ts';

const CONNECTIONS = 64;
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 8000);
const MAX_TOKENS = 60_000;

interface ServiceInfo {
  port: number;
  sitekey: string;
  secret: string;
  tokenKey: string;
}

function line(name: string, r: LoadResult): string {
  return `${name.padEnd(24)} ${fmt(r.rps, 0).padStart(8)} req/s   p50 ${fmt(r.p50, 2).padStart(7)} ms   p99 ${fmt(r.p99, 2).padStart(7)} ms   errors ${r.errors}/${r.requests}`;
}

export async function main(): Promise<{ ratio: number }> {
  const baseline = await startChild<{ port: number }>('bench/servers/bare-koa.ts');
  const service = await startChild<ServiceInfo>(process.env.BENCH_SERVICE_SCRIPT ?? 'bench/servers/service.ts');
  try {
    const body = JSON.stringify({ secret: 'x', response: 'y' });
    const bare = await runLoad({
      url: `http://127.0.0.1:${baseline.info.port}`,
      connections: CONNECTIONS,
      durationMs: DURATION_MS,
      request: () => ({ method: 'POST', path: '/', headers: { 'content-type': 'application/json' }, body }),
    });

    // Fresh tokens sealed ahead of time with the service's key, so the run measures verification only.
    const key = Buffer.from(service.info.tokenKey, 'hex');
    const now = Date.now();
    const tokens = Array.from({ length: MAX_TOKENS }, () =>
      sealToken({ id: newTokenId(), site: service.info.sitekey, hostname: 'bench.example', iat: now, kind: 'v3', action: 'bench', score: 0.9, cdata: null }, key),
    );
    let failures = 0;
    const verify = await runLoad({
      url: `http://127.0.0.1:${service.info.port}`,
      connections: CONNECTIONS,
      durationMs: DURATION_MS,
      maxRequests: MAX_TOKENS,
      request: (i) => ({
        method: 'POST',
        path: '/api/v1/siteverify',
        // A different client address per request keeps the 120/minute per-address limit out of the way.
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` },
        body: JSON.stringify({ secret: service.info.secret, response: tokens[i] }),
      }),
      isError: (status, text) => {
        const bad = status !== 200 || !text.includes('"success":true');
        if (bad) failures++;
        return bad;
      },
    });
    const ratio = verify.rps / bare.rps;
    console.log(`siteverify at ${CONNECTIONS} connections, ${DURATION_MS / 1000} s each (store: ${process.env.BENCH_REDIS_URL ? 'redis' : 'memory'})`);
    console.log(line('bare Koa JSON (baseline)', bare));
    console.log(line('siteverify (fresh tokens)', verify));
    console.log(`ratio siteverify/baseline: ${fmt(ratio, 2)} (target >= 0.5); non-success verdicts: ${failures}`);
    void randomBytes;
    return { ratio };
  } finally {
    await service.stop();
    await baseline.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
