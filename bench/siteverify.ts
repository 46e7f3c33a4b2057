// Siteverify throughput: requests/s and p99 with fresh tokens at 64 connections, driven by
// Debian's wrk, beside a bare Koa JSON endpoint measured in the same run (just before each
// variant). On memory stores and on Redis. Targets: >= 0.5 of the baseline, p99 <= 20 ms.
// Run: npx tsx bench/siteverify.ts
//   BENCH_REDIS_URL   Redis for the second variant (default redis://127.0.0.1:6379; skipped if down)
//   BENCH_STORES=memory  only the memory variant
//   BENCH_CPU_PROF=dir  writes the service's CPU profile there and prints its top self time
import { mkdirSync, writeFileSync } from 'node:fs';
import { createClient } from 'redis';
import { sealToken, newTokenId } from '../src/captcha/tokens.ts';
import { startChild } from './lib/child.ts';
import { fmt } from './lib/load.ts';
import { hasWrk, loadAverage, runWrk, type WrkResult } from './lib/wrk.ts';
import { monotonicUs, newestProfile, printTopSelfTime, type ProfileWindow } from './lib/cpu-profile.ts';

const CONNECTIONS = 64;
const DURATION_SEC = Number(process.env.BENCH_DURATION_SEC ?? 8);
const TOKENS = Number(process.env.BENCH_TOKENS ?? 120_000);

interface ServiceInfo {
  port: number;
  sitekey: string;
  secret: string;
  tokenKey: string;
}

export function line(name: string, r: WrkResult): string {
  return `${name.padEnd(30)} ${fmt(r.rps, 0).padStart(8)} req/s   p50 ${fmt(r.p50, 2).padStart(7)} ms   p99 ${fmt(r.p99, 2).padStart(7)} ms   errors ${r.socketErrors + r.non2xx}/${r.requests}`;
}

/** The bare Koa baseline at `connections`, posting a small JSON body. */
export async function measureBaseline(connections: number, durationSec: number): Promise<WrkResult> {
  const baseline = await startChild<{ port: number }>('bench/servers/bare-koa.ts');
  try {
    const body = JSON.stringify({ secret: 'x', response: 'y' });
    await runWrk({ url: `http://127.0.0.1:${baseline.info.port}`, connections, durationSec: 1, requests: [{ method: 'POST', path: '/', headers: { 'content-type': 'application/json' }, body }] });
    return await runWrk({
      url: `http://127.0.0.1:${baseline.info.port}`,
      connections,
      durationSec,
      requests: [{ method: 'POST', path: '/', headers: { 'content-type': 'application/json' }, body }],
    });
  } finally {
    await baseline.stop();
  }
}

export async function redisReachable(url: string): Promise<boolean> {
  const client = createClient({ url, socket: { connectTimeout: 1000, reconnectStrategy: false } });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return true;
  } catch {
    return false;
  } finally {
    await client.disconnect().catch(() => {});
  }
}

/** Node flags for a benchmark child: a CPU profile into BENCH_CPU_PROF when set. */
export function profileArgs(label: string): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  if (!dir) return [];
  mkdirSync(`${dir}/${label}`, { recursive: true });
  return ['--cpu-prof', '--cpu-prof-dir', `${dir}/${label}`];
}

/** Prints the top self time of the child's profile during `window` (when BENCH_CPU_PROF is set). */
export function printProfile(label: string, window?: ProfileWindow): void {
  const dir = process.env.BENCH_CPU_PROF;
  const file = dir ? newestProfile(`${dir}/${label}`) : undefined;
  if (!file) return;
  if (window) writeFileSync(`${dir}/${label}/window.json`, JSON.stringify(window));
  printTopSelfTime(file, 20, window);
}

async function measureSiteverify(store: 'memory' | 'redis', redisUrl: string): Promise<WrkResult> {
  const env: Record<string, string> = { BENCH_REDIS_URL: store === 'redis' ? redisUrl : '' };
  const service = await startChild<ServiceInfo>('bench/servers/service.ts', env, profileArgs(`siteverify-${store}`));
  const window = { fromUs: 0, toUs: 0 };
  try {
    // Fresh tokens sealed ahead with the service's key, so the run measures verification only;
    // a different client address per request keeps the per-address limit out of the way.
    const key = Buffer.from(service.info.tokenKey, 'hex');
    const now = Date.now();
    const requests = Array.from({ length: TOKENS }, (_, i) => ({
      method: 'POST' as const,
      path: '/api/v1/siteverify',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` },
      body: JSON.stringify({
        secret: service.info.secret,
        response: sealToken({ id: newTokenId(), site: service.info.sitekey, hostname: 'bench.example', iat: now, kind: 'v3', action: 'bench', score: 0.9, cdata: null }, key),
      }),
    }));
    // Warm-up on tokens of their own (spent here, so the measured run never repeats one).
    const warm = requests.splice(0, 5000);
    await runWrk({ url: `http://127.0.0.1:${service.info.port}`, connections: CONNECTIONS, durationSec: 1, requests: warm });
    window.fromUs = monotonicUs();
    const r = await runWrk({ url: `http://127.0.0.1:${service.info.port}`, connections: CONNECTIONS, durationSec: DURATION_SEC, requests });
    window.toUs = monotonicUs();
    if (r.requests > requests.length) console.log(`  (tokens ran out: ${r.requests - requests.length} repeats answered as spent; raise BENCH_TOKENS)`);
    return r;
  } finally {
    await service.stop();
    printProfile(`siteverify-${store}`, window);
  }
}

export async function main(): Promise<{ memory: number; redis?: number }> {
  if (!(await hasWrk())) throw new Error('wrk is not installed (apt-get install wrk)');
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const stores: Array<'memory' | 'redis'> = ['memory'];
  if (process.env.BENCH_STORES === 'memory') console.log('(BENCH_STORES=memory: Redis variant skipped)');
  else if (await redisReachable(redisUrl)) stores.push('redis');
  else console.log(`(Redis at ${redisUrl} unreachable: Redis variant skipped)`);
  const ratios: Record<string, number> = {};
  console.log(`siteverify at ${CONNECTIONS} connections, ${DURATION_SEC} s each, wrk; load average before: ${loadAverage()}`);
  for (const store of stores) {
    const bare = await measureBaseline(CONNECTIONS, DURATION_SEC);
    const verify = await measureSiteverify(store, redisUrl);
    ratios[store] = verify.rps / bare.rps;
    console.log(line('bare Koa JSON (baseline)', bare));
    console.log(line(`siteverify (${store})`, verify));
    console.log(
      `ratio siteverify/baseline (${store}): ${fmt(ratios[store]!, 2)} (target >= 0.5${ratios[store]! >= 0.5 ? ', met' : ', NOT met'}); p99 ${fmt(verify.p99, 1)} ms (target <= 20${verify.p99 <= 20 ? ', met' : ', NOT met'}); load average ${loadAverage()}`,
    );
  }
  return { memory: ratios.memory!, redis: ratios.redis };
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
