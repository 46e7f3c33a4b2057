// Hot paths and footprint, beside a bare Koa baseline in the same run (load from Debian's wrk):
//   - v2 and v3 challenge creation at 64 connections (server side only), target >= 0.4 of bare Koa;
//   - authenticated GET /api/v1/account on PostgreSQL, one keep-alive connection: p50 at most
//     twice /healthz p50;
//   - cold start of the compiled service (npm start's node command) to a ready /readyz on
//     PostgreSQL (target <= 1.5 s), and on the embedded default for comparison;
//   - resident memory after a minute of mixed load: <= 150 MB on PostgreSQL, <= 300 MB embedded.
// Run: npx tsx bench/hotpaths.ts [challenges] [account] [start] [rss]
//   BENCH_DATABASE_URL  admin URL of PostgreSQL (default postgresql://postgres@127.0.0.1:5432/postgres)
//   BENCH_RSS_SECONDS   length of the mixed load (default 60)
//   BENCH_CPU_PROF=dir  writes the challenge service's CPU profile there and prints its top self time
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshPostgresDatabase } from '../test/helpers/services.ts';
import { npmStartArguments, startChild } from './lib/child.ts';
import { address, challengeRequests } from './lib/requests.ts';
import { fmt } from './lib/load.ts';
import { hasWrk, loadAverage, runWrk, runWrkMeasured, type WrkRequest, type WrkResult } from './lib/wrk.ts';
import { alternate, BASELINE_REQUEST, line, printProfile, profileArgs, redisReachable } from './siteverify.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const CONNECTIONS = 64;
const DURATION_SEC = Number(process.env.BENCH_DURATION_SEC ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ORIGIN = 'https://bench.example';

interface ServiceInfo {
  port: number;
  sitekey: string;
  apiKey: string;
}

const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

async function challenges(): Promise<void> {
  const baseline = await startChild<{ port: number }>('bench/servers/bare-koa.ts');
  const service = await startChild<ServiceInfo>(
    'bench/servers/service.ts',
    { BENCH_REDIS_URL: '' },
    profileArgs('challenges'),
    { traceGc: true },
  );
  try {
    const bareUrl = `http://127.0.0.1:${baseline.info.port}`;
    const url = `http://127.0.0.1:${service.info.port}`;
    for (const version of ['v2', 'v3'] as const) {
      const requests = challengeRequests(version, service.info.sitekey, ORIGIN, 50_000);
      await runWrk({ url, connections: CONNECTIONS, durationSec: 1, requests: requests.slice(0, 5000) });
      const r = await alternate(
        ROUNDS,
        () =>
          runWrkMeasured(baseline.child.pid!, {
            url: bareUrl,
            connections: CONNECTIONS,
            durationSec: DURATION_SEC,
            requests: [BASELINE_REQUEST],
          }),
        () =>
          runWrkMeasured(
            service.child.pid!,
            { url, connections: CONNECTIONS, durationSec: DURATION_SEC, requests },
            service.gc,
          ),
      );
      console.log(line('bare Koa JSON (baseline)', r.bare));
      console.log(line(`${version} challenge creation`, r.service));
      console.log(
        `ratio ${version}/baseline: ${fmt(r.ratio, 2)} [rounds ${r.ratios.map((x) => fmt(x, 2)).join(' ')}] (target >= 0.4, ${verdict(r.ratio >= 0.4)}); server CPU per request ${fmt(r.service.cpuUsPerRequest / r.bare.cpuUsPerRequest, 2)}x the baseline's; load average ${loadAverage()}`,
      );
    }
  } finally {
    await service.stop();
    await baseline.stop();
    printProfile('challenges');
  }
}

async function account(): Promise<void> {
  const db = await freshPostgresDatabase(ADMIN_URL);
  const service = await startChild<ServiceInfo>('bench/servers/service.ts', {
    BENCH_REDIS_URL: '',
    BENCH_DATABASE_URL: db.url,
  });
  try {
    const url = `http://127.0.0.1:${service.info.port}`;
    const healthz: WrkRequest = { method: 'GET', path: '/healthz' };
    const acct: WrkRequest = {
      method: 'GET',
      path: '/api/v1/account',
      headers: { authorization: `Bearer ${service.info.apiKey}` },
    };
    for (const r of [healthz, acct]) await runWrk({ url, connections: 1, threads: 1, durationSec: 1, requests: [r] });
    const h: WrkResult[] = [];
    const a: WrkResult[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      h.push(await runWrk({ url, connections: 1, threads: 1, durationSec: DURATION_SEC, requests: [healthz] }));
      a.push(await runWrk({ url, connections: 1, threads: 1, durationSec: DURATION_SEC, requests: [acct] }));
    }
    const mid = (rs: typeof h) => [...rs].sort((x, y) => x.p50 - y.p50)[Math.floor(rs.length / 2)];
    const hm = mid(h);
    const am = mid(a);
    console.log('one keep-alive connection, sequential, PostgreSQL (memory stores)');
    console.log(`/healthz            p50 ${fmt(hm.p50, 3)} ms   p99 ${fmt(hm.p99, 2)} ms   ${fmt(hm.rps, 0)} req/s`);
    console.log(
      `GET /api/v1/account p50 ${fmt(am.p50, 3)} ms   p99 ${fmt(am.p99, 2)} ms   ${fmt(am.rps, 0)} req/s   errors ${am.non2xx + am.socketErrors}`,
    );
    console.log(
      `account p50 / healthz p50: ${fmt(am.p50 / hm.p50, 2)} (target <= 2, ${verdict(am.p50 <= 2 * hm.p50)}); load average ${loadAverage()}`,
    );
  } finally {
    await service.stop();
    await db.drop();
  }
}

let built = false;

/** Builds dist/ (npm run build) once per benchmark run, so it matches the sources. */
function ensureBuilt(): void {
  if (built || process.env.BENCH_NO_BUILD === '1') return;
  built = true;
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('npm run build failed');
}

interface Started {
  child: ChildProcess;
  port: number;
  apiKey?: string;
  /** Milliseconds from spawn to the first 200 of /readyz. */
  readyMs: number;
}

/** Starts the compiled service as `npm start` does and polls /readyz until it answers 200. */
async function startDist(env: Record<string, string>): Promise<Started> {
  const started = performance.now();
  const child = spawn(process.execPath, npmStartArguments(), {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      API_RATE_LIMIT: '100000000',
      TRUST_PROXY: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const deadline = started + 60_000;
  for (;;) {
    if (performance.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`no ready /readyz within 60 s:\n${out}`);
    }
    const port = /Listening on http:\/\/localhost:(\d+)/.exec(out)?.[1];
    if (port) {
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) {
        return {
          child,
          port: Number(port),
          apiKey: /API key \(shown once, keep it\): (ak_\S+)/.exec(out)?.[1],
          readyMs: performance.now() - started,
        };
      }
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function stopDist(s: Started): Promise<void> {
  if (s.child.exitCode !== null) return;
  const exited = new Promise((r) => s.child.once('exit', r));
  s.child.kill('SIGTERM');
  await exited;
}

function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

async function coldStart(): Promise<void> {
  ensureBuilt();
  const db = await freshPostgresDatabase(ADMIN_URL);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-start-'));
  try {
    const first = await startDist({ DATABASE_URL: db.url });
    await stopDist(first);
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const s = await startDist({ DATABASE_URL: db.url });
      times.push(s.readyMs);
      await stopDist(s);
    }
    const median = [...times].sort((a, b) => a - b)[1];
    console.log(
      `cold start to ready /readyz, compiled (npm start's node command), PostgreSQL: first start (migrations) ${fmt(first.readyMs, 0)} ms; then ${times.map((t) => fmt(t, 0)).join(', ')} ms, median ${fmt(median, 0)} ms (target <= 1500, ${verdict(median <= 1500)})`,
    );
    const embeddedFirst = await startDist({ DATA_DIR: dataDir });
    await stopDist(embeddedFirst);
    const embedded = await startDist({ DATA_DIR: dataDir });
    await stopDist(embedded);
    console.log(
      `cold start, embedded (PGlite): first start ${fmt(embeddedFirst.readyMs, 0)} ms, next ${fmt(embedded.readyMs, 0)} ms; load average ${loadAverage()}`,
    );
  } finally {
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A mix of what clients do: health checks, account, report lists, challenges, siteverify. */
function mixedRequests(apiKey: string, sitekey: string): WrkRequest[] {
  const auth = { authorization: `Bearer ${apiKey}` };
  const list: WrkRequest[] = [];
  for (let i = 0; i < 20_000; i++) {
    const xff = { 'x-forwarded-for': address(i) };
    switch (i % 6) {
      case 0:
        list.push({ method: 'GET', path: '/healthz' });
        break;
      case 1:
        list.push({ method: 'GET', path: '/api/v1/account', headers: auth });
        break;
      case 2:
        list.push({ method: 'GET', path: '/api/v1/reports?per_page=20', headers: auth });
        break;
      case 3:
        list.push({
          method: 'POST',
          path: '/api/v3/challenges',
          headers: { 'content-type': 'application/json', origin: ORIGIN, ...xff },
          body: JSON.stringify({ sitekey, action: 'mixed' }),
        });
        break;
      case 4:
        list.push({
          method: 'POST',
          path: '/api/v2/challenges',
          headers: { 'content-type': 'application/json', origin: ORIGIN, ...xff },
          body: JSON.stringify({ sitekey, action: 'mixed' }),
        });
        break;
      default:
        list.push({
          method: 'POST',
          path: '/api/v1/siteverify',
          headers: { 'content-type': 'application/json', ...xff },
          body: JSON.stringify({ secret: 'sec_0000000000_x', response: `bad-${i}` }),
        });
    }
  }
  return list;
}

async function registerSite(port: number, apiKey: string): Promise<string> {
  // Sites are managed through /trpc (typed clients); a tRPC mutation takes its input as the body.
  const res = await fetch(`http://127.0.0.1:${port}/trpc/sites.create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ name: 'mixed', origins: [ORIGIN] }),
  });
  const body = (await res.json()) as { result?: { data?: { data?: { sitekey?: string } } } };
  const sitekey = body.result?.data?.data?.sitekey;
  if (!sitekey) throw new Error(`could not register a site: ${res.status} ${JSON.stringify(body)}`);
  return sitekey;
}

async function rss(): Promise<void> {
  ensureBuilt();
  const seconds = Number(process.env.BENCH_RSS_SECONDS ?? 60);
  const db = await freshPostgresDatabase(ADMIN_URL);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-rss-'));
  let redisDb: Awaited<ReturnType<typeof freshPostgresDatabase>> | undefined;
  try {
    // With Redis the challenge state (v1 images held ten minutes) lives there, not in the process.
    const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
    const variants: [string, Record<string, string>, number][] = [
      ['PostgreSQL', { DATABASE_URL: db.url }, 150],
      ['embedded', { DATA_DIR: dataDir }, 300],
    ];
    if (await redisReachable(redisUrl)) {
      // A database of its own: the API key is printed on a first start only.
      redisDb = await freshPostgresDatabase(ADMIN_URL);
      variants.push(['PostgreSQL + Redis', { DATABASE_URL: redisDb.url, REDIS_URL: redisUrl }, 150]);
    }
    for (const [name, env, limit] of variants) {
      const s = await startDist(env);
      try {
        if (!s.apiKey) throw new Error('no API key printed on first start');
        const atReady = rssMb(s.child.pid!);
        const sitekey = await registerSite(s.port, s.apiKey);
        const r = await runWrk({
          url: `http://127.0.0.1:${s.port}`,
          connections: 16,
          durationSec: seconds,
          requests: mixedRequests(s.apiKey, sitekey),
        });
        const after = rssMb(s.child.pid!);
        console.log(
          `RSS ${name}: ${fmt(atReady, 0)} MB at ready, ${fmt(after, 0)} MB after ${seconds} s of mixed load (${fmt(r.rps, 0)} req/s, ${r.requests} requests) (target <= ${limit} MB, ${verdict(after <= limit)}); load average ${loadAverage()}`,
        );
      } finally {
        await stopDist(s);
      }
    }
  } finally {
    await db.drop();
    await redisDb?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const parts = { challenges, account, start: coldStart, rss } as const;

export async function main(which: string[] = []): Promise<void> {
  if (!(await hasWrk())) throw new Error('wrk is not installed (apt-get install wrk)');
  const names = which.length ? which : Object.keys(parts);
  for (const name of names) {
    const part = parts[name as keyof typeof parts];
    if (!part) throw new Error(`unknown part ${name}; choose from ${Object.keys(parts).join(', ')}`);
    console.log(`-- ${name} (load average ${loadAverage()})`);
    await part();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main(process.argv.slice(2));
