// Siteverify throughput: requests/s and p99 with fresh tokens at 64 connections, driven by
// Debian's wrk, beside a bare Koa JSON endpoint measured in the same run (just before each
// variant). On memory stores and on Redis. Targets: >= 0.5 of the baseline, p99 <= 20 ms.
// Run: npx tsx bench/siteverify.ts
//   BENCH_REDIS_URL   Redis for the second variant (default redis://127.0.0.1:6379; skipped if down)
//   BENCH_STORES=memory  only the memory variant
//   BENCH_CPU_PROF=dir  writes the service's CPU profile there and prints its top self time
//   BENCH_WORK_US=10,20,60  busy waits for the work-budget rows (bench/lib/work-budget.ts)
import { mkdirSync, writeFileSync } from 'node:fs';
import { createClient } from 'redis';
import { startChild } from './lib/child.ts';
import { siteverifyRequests } from './lib/requests.ts';
import { fmt } from './lib/load.ts';
import { hasWrk, loadAverage, runWrk, runWrkMeasured, type GcPerRequest, type WrkResult } from './lib/wrk.ts';
import { monotonicUs, newestProfile, printTopSelfTime, type ProfileWindow } from './lib/cpu-profile.ts';
import { printWorkBudget } from './lib/work-budget.ts';

const CONNECTIONS = 64;
const DURATION_SEC = Number(process.env.BENCH_DURATION_SEC ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TOKENS = Number(process.env.BENCH_TOKENS ?? 480_000);
/** Busy waits for the work-budget rows (BENCH_WORK_US, comma-separated; empty skips them). */
const WORK_BUDGET_US = (process.env.BENCH_WORK_US ?? '10,20,60').split(',').filter(Boolean).map(Number);

interface ServiceInfo {
  port: number;
  sitekey: string;
  secret: string;
  tokenKey: string;
}

export function line(
  name: string,
  r: WrkResult & { cpuUsPerRequest?: number; kernelUsPerRequest?: number; gc?: GcPerRequest },
): string {
  const cpu =
    r.cpuUsPerRequest === undefined
      ? ''
      : `   server CPU ${fmt(r.cpuUsPerRequest, 0).padStart(4)} µs/req (kernel ${fmt(r.kernelUsPerRequest ?? 0, 0)})`;
  const gc = r.gc
    ? `\n${''.padEnd(31)}GC ${fmt(r.gc.pauseUs, 1)} µs/req paused (longest ${fmt(r.gc.maxPauseMs, 1)} ms), ${fmt(r.gc.allocatedBytes / 1024, 1)} KB/req allocated, ${fmt(r.gc.promotedBytes, 0)} B/req promoted`
    : '';
  return `${name.padEnd(30)} ${fmt(r.rps, 0).padStart(8)} req/s   p50 ${fmt(r.p50, 2).padStart(7)} ms   p99 ${fmt(r.p99, 2).padStart(7)} ms   errors ${r.socketErrors + r.non2xx}/${r.requests}${cpu}${gc}`;
}

/** The bare Koa baseline's one request: a small JSON body answered with JSON. */
export const BASELINE_REQUEST = {
  method: 'POST' as const,
  path: '/',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ secret: 'x', response: 'y' }),
};

/** The median of `values`. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  // Of an even count, the mean of the two middle values (the upper one alone reads high).
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Alternates short wrk runs of the baseline and of the service (ROUNDS of each), so that
 * load from other work on a shared machine falls on both alike, and returns the run with the
 * median ratio (its figures, the ratio and every round's ratio).
 */
export async function alternate<R extends WrkResult>(
  rounds: number,
  runBaseline: () => Promise<R>,
  runService: (round: number) => Promise<R>,
): Promise<{ bare: R; service: R; ratio: number; ratios: number[] }> {
  const pairs: Array<{ bare: R; service: R; ratio: number }> = [];
  for (let i = 0; i < rounds; i++) {
    const bare = await runBaseline();
    const service = await runService(i);
    pairs.push({ bare, service, ratio: service.rps / bare.rps });
  }
  const ratios = pairs.map((p) => p.ratio);
  const mid = pairs.find((p) => p.ratio === median(ratios))!;
  return { ...mid, ratios };
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

async function measureSiteverify(store: 'memory' | 'redis', redisUrl: string, baseline: { port: number; pid: number }) {
  const env: Record<string, string> = { BENCH_REDIS_URL: store === 'redis' ? redisUrl : '' };
  const service = await startChild<ServiceInfo>('bench/servers/service.ts', env, profileArgs(`siteverify-${store}`), {
    traceGc: true,
  });
  const window = { fromUs: 0, toUs: 0 };
  try {
    // Fresh tokens sealed ahead with the service's key, so the runs measure verification only
    // (each run its own share: a repeated token would be answered as spent); a different
    // client address per request keeps the per-address limit out of the way.
    const requests = siteverifyRequests(service.info, TOKENS);
    const share = Math.floor(TOKENS / (ROUNDS + 1));
    const url = `http://127.0.0.1:${service.info.port}`;
    const bareUrl = `http://127.0.0.1:${baseline.port}`;
    // Warm-up of both.
    await runWrk({ url: bareUrl, connections: CONNECTIONS, durationSec: 1, requests: [BASELINE_REQUEST] });
    await runWrk({ url, connections: CONNECTIONS, durationSec: 1, requests: requests.slice(0, share) });
    window.fromUs = monotonicUs();
    const result = await alternate(
      ROUNDS,
      () =>
        runWrkMeasured(baseline.pid, {
          url: bareUrl,
          connections: CONNECTIONS,
          durationSec: DURATION_SEC,
          requests: [BASELINE_REQUEST],
        }),
      async (round) => {
        const mine = requests.slice(share * (round + 1), share * (round + 2));
        const r = await runWrkMeasured(
          service.child.pid!,
          { url, connections: CONNECTIONS, durationSec: DURATION_SEC, requests: mine },
          service.gc,
        );
        if (r.requests > mine.length)
          console.log(`  (tokens ran out: ${r.requests - mine.length} repeats answered as spent; raise BENCH_TOKENS)`);
        return r;
      },
    );
    window.toUs = monotonicUs();
    return result;
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
  console.log(
    `siteverify at ${CONNECTIONS} connections, wrk, ${ROUNDS} alternating rounds of ${DURATION_SEC} s (median shown); load average before: ${loadAverage()}`,
  );
  const baseline = await startChild<{ port: number }>('bench/servers/bare-koa.ts');
  try {
    for (const store of stores) {
      const {
        bare,
        service,
        ratio,
        ratios: each,
      } = await measureSiteverify(store, redisUrl, { port: baseline.info.port, pid: baseline.child.pid! });
      ratios[store] = ratio;
      console.log(line('bare Koa JSON (baseline)', bare));
      console.log(line(`siteverify (${store})`, service));
      console.log(
        `server CPU per request, siteverify/baseline (${store}): ${fmt(service.cpuUsPerRequest / bare.cpuUsPerRequest, 2)} (the inverse bounds the ratio on an idle machine)`,
      );
      console.log(
        `ratio siteverify/baseline (${store}): ${fmt(ratio, 2)} [rounds ${each.map((r) => fmt(r, 2)).join(' ')}] (target >= 0.5${ratio >= 0.5 ? ', met' : ', NOT met'}); p99 ${fmt(service.p99, 1)} ms (target <= 20${service.p99 <= 20 ? ', met' : ', NOT met'}); load average ${loadAverage()}`,
      );
    }
    await printWorkBudget({
      baseline: { port: baseline.info.port, pid: baseline.child.pid! },
      request: BASELINE_REQUEST,
      connections: CONNECTIONS,
      durationSec: DURATION_SEC,
      workUs: WORK_BUDGET_US,
    });
  } finally {
    await baseline.stop();
  }
  return { memory: ratios.memory, redis: ratios.redis };
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
