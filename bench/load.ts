// Mixed workload at increasing arrival rates against 1 and 3 service processes on one real
// PostgreSQL and one Redis, then a soak that watches each process's heap after GC.
//
//   npx tsx bench/load.ts [--rates 100,200,400,800] [--step-seconds 10] [--instances 1,3]
//                         [--soak-seconds 300] [--soak-rate 100] [--no-steps]
//
// BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/bench_load, dropped and
// created afresh at each run; a URL you give is used as it is) and BENCH_REDIS_URL (default
// redis://127.0.0.1:6379/8: bin/server.ts writes under its default key prefix, so the benchmark
// keeps to a logical database of its own).
//
// The mix, per 20 arrivals: 4 v1 challenge creates (test sitekey 3x…FF: any origin, answer
// TEXT), 4 assets, 4 verifies (right answer, so each yields a token), 3 v3 token issues for a
// registered site, 3 siteverify calls redeeming those tokens, 2 report lists (25 of 200
// seeded reports). Every arrival has an X-Forwarded-For address of its own (the instances
// trust the proxy) so per-address limits stay out of the way; API_RATE_LIMIT is lifted.
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { MikroORM } from '@mikro-orm/postgresql';
import type { Pool } from 'undici';
import { initORM } from '../src/db/orm.ts';
import { createUser } from '../src/accounts/users.ts';
import { createApiKey } from '../src/accounts/api-keys.ts';
import { createSite } from '../src/captcha/sites.ts';
import { createReport } from '../src/reports/reports.ts';
import { syntheticAnalysis } from '../test/helpers/analysis.ts';
import { startCluster, type Cluster } from '../test/helpers/cluster.ts';
import { fmt } from './lib/load.ts';
import { openPools, runOpenLoop, type Op, type StepResult } from './cluster/open-loop.ts';

export interface LoadBenchOptions {
  rates: number[];
  stepSeconds: number;
  instances: number[];
  soakSeconds: number;
  soakRate: number;
  steps: boolean;
}

export function parseArgs(argv: string[]): LoadBenchOptions {
  const opts: LoadBenchOptions = {
    rates: [100, 200, 400, 800],
    stepSeconds: 10,
    instances: [1, 3],
    soakSeconds: 300,
    soakRate: 100,
    steps: true,
  };
  const num = (v: string | undefined, name: string) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name} needs a number`);
    return n;
  };
  const list = (v: string | undefined, name: string) =>
    (v ?? '')
      .split(',')
      .map((x) => num(x, name))
      .filter((n) => n > 0);
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2) as [string, string | undefined];
    const value = () => inline ?? argv[++i];
    switch (flag) {
      case '--rates':
        opts.rates = list(value(), flag);
        break;
      case '--step-seconds':
        opts.stepSeconds = num(value(), flag);
        break;
      case '--instances':
        opts.instances = list(value(), flag);
        break;
      case '--soak-seconds':
        opts.soakSeconds = num(value(), flag);
        break;
      case '--soak-rate':
        opts.soakRate = num(value(), flag);
        break;
      case '--no-steps':
        opts.steps = false;
        break;
      default:
        break; // names given to bench/run.ts and such
    }
  }
  return opts;
}

const DEFAULT_DB = 'postgresql://postgres@127.0.0.1:5432/bench_load';
const DEFAULT_REDIS = 'redis://127.0.0.1:6379/8';
const ORIGIN = 'https://bench.example';
const TEST_IMAGE_SITEKEY = '3x00000000000000000000FF';
const TIMEOUT_MS = 10_000;
const MAX_IN_FLIGHT = 2000;

async function recreateDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`unexpected database name ${name}`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const orm = await MikroORM.init({
    clientUrl: admin.toString(),
    entities: [],
    discovery: { warnWhenNoEntities: false },
    pool: { min: 0, max: 1 },
  });
  try {
    await orm.em.getConnection().execute(`drop database if exists "${name}" with (force)`);
    await orm.em.getConnection().execute(`create database "${name}"`);
  } finally {
    await orm.close(true);
  }
}

interface Fixture {
  apiKey: string;
  sitekey: string;
  secret: string;
}

/** A user with an API key, a registered site, and 200 reports in 5 projects to list. */
async function seed(databaseUrl: string): Promise<Fixture> {
  const db = await initORM({ databaseUrl }, { pool: { min: 0, max: 2 } });
  try {
    const em = db.orm.em.fork();
    const user = await createUser(em, { name: `bench-${randomBytes(3).toString('hex')}` });
    const { key } = await createApiKey(em, user, 'bench');
    const { site, secret } = await createSite(em, user.id, { name: 'bench', origins: [ORIGIN] });
    for (let i = 0; i < 200; i++) {
      const host = `site${i % 5}.bench.example`;
      const score = 40 + ((i * 7) % 60);
      const analysis = syntheticAnalysis(`https://${host}/page/${i}`, score);
      await createReport(em.fork(), user.id, { privacy: 0 }, analysis);
    }
    return { apiKey: key, sitekey: site.sitekey, secret };
  } finally {
    await db.close();
  }
}

/** The mixed workload: op i of a fixed 20-slot pattern, with state carried between ops. */
function workload(f: Fixture) {
  const run = randomBytes(6).toString('hex').match(/.{4}/g)!.join(':');
  let addr = 0;
  const ip = () => `fd00:${run}::${(++addr).toString(16)}`;
  const forAsset: string[] = [];
  const forVerify: string[] = [];
  const tokens: string[] = [];
  const push = (q: string[], v: string, cap: number) => {
    q.push(v);
    if (q.length > cap) q.shift();
  };
  const browser = (): Record<string, string> => ({
    origin: ORIGIN,
    'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36',
    'accept-language': 'en-GB,en;q=0.9',
    'content-type': 'application/json',
    'x-forwarded-for': ip(),
  });
  const json = (text: string) => {
    try {
      return JSON.parse(text);
    } catch {
      return {};
    }
  };
  const v1Create = (): Op => ({
    name: 'v1-create',
    method: 'POST',
    path: '/api/v1/challenges',
    headers: browser(),
    body: JSON.stringify({ sitekey: TEST_IMAGE_SITEKEY }),
    ok: (s) => s === 201,
    then: (_s, t) => {
      const id = json(t).challenge;
      if (id) push(forAsset, id, 2000);
    },
  });
  const v3 = (): Op => ({
    name: 'v3-create',
    method: 'POST',
    path: '/api/v3/challenges',
    headers: browser(),
    body: JSON.stringify({ sitekey: f.sitekey, action: 'bench' }),
    ok: (s) => s === 201,
    then: (_s, t) => {
      const token = json(t).token;
      if (token) push(tokens, token, 5000);
    },
  });
  const pattern = [
    'v1',
    'asset',
    'verify',
    'v3',
    'siteverify',
    'v1',
    'list',
    'asset',
    'verify',
    'v3',
    'siteverify',
    'v1',
    'asset',
    'verify',
    'v3',
    'siteverify',
    'v1',
    'list',
    'asset',
    'verify',
  ] as const;
  return (i: number): Op => {
    switch (pattern[i % pattern.length]) {
      case 'v1':
        return v1Create();
      case 'asset': {
        const id = forAsset.pop();
        if (!id) return v1Create();
        return {
          name: 'asset',
          method: 'GET',
          path: `/api/v1/challenges/${id}/asset`,
          headers: browser(),
          ok: (s) => s === 200,
          then: () => push(forVerify, id, 2000),
        };
      }
      case 'verify': {
        const id = forVerify.pop() ?? forAsset.pop();
        if (!id) return v1Create();
        return {
          name: 'verify',
          method: 'POST',
          path: `/api/v1/challenges/${id}/verify`,
          headers: browser(),
          body: JSON.stringify({ answer: 'TEXT' }),
          ok: (s, t) => s === 200 && t.includes('"success":true'),
        };
      }
      case 'v3':
        return v3();
      case 'siteverify': {
        const token = tokens.pop();
        if (!token) return v3();
        return {
          name: 'siteverify',
          method: 'POST',
          path: '/api/v1/siteverify',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': ip() },
          body: JSON.stringify({ secret: f.secret, response: token }),
          ok: (s, t) => s === 200 && t.includes('"success":true'),
        };
      }
      case 'list':
        return {
          name: 'reports-list',
          method: 'GET',
          path: `/api/v1/reports?per_page=25&page=${(i % 8) + 1}`,
          headers: { authorization: `Bearer ${f.apiKey}`, accept: 'application/json' },
          ok: (s) => s === 200,
        };
    }
  };
}

function stepLine(label: string, r: StepResult): string {
  const rate = r.sent + r.dropped ? (100 * r.errors) / (r.sent + r.dropped) : 0;
  return `${label} offered ${String(r.rate).padStart(4)}/s  achieved ${fmt(r.achieved).padStart(6)}/s  p50 ${fmt(r.p50).padStart(7)} ms  p99 ${fmt(r.p99).padStart(7)} ms  errors ${r.errors}/${r.sent + r.dropped} (${fmt(rate, 2)}%)`;
}

function opsLine(r: StepResult): string {
  return (
    '      ' +
    Object.entries(r.byOp)
      .map(([n, s]) => `${n} p99 ${fmt(s.p99, 0)}${s.errors ? ` (${s.errors} err)` : ''}`)
      .join(', ')
  );
}

/** Heap-after-GC sampling through bench/cluster/heap-reporter.ts (SIGUSR2, one HEAP line back). */
function heapSampler() {
  const waiting = new Map<number, (bytes: number) => void>();
  return {
    onLine(index: number, line: string) {
      if (!line.startsWith('HEAP ')) return;
      const sample = JSON.parse(line.slice(5)) as { heapUsed: number; gc: boolean };
      if (!sample.gc)
        console.warn(`process ${index} has no global.gc (start it with --expose-gc): heap figures include garbage`);
      waiting.get(index)?.(sample.heapUsed);
      waiting.delete(index);
    },
    async sample(cluster: Cluster): Promise<number[]> {
      return Promise.all(
        cluster.instances.map(
          (inst) =>
            new Promise<number>((resolve) => {
              const timer = setTimeout(() => resolve(NaN), 10_000);
              waiting.set(inst.index, (b) => {
                clearTimeout(timer);
                resolve(b);
              });
              inst.child.kill('SIGUSR2');
            }),
        ),
      );
    },
  };
}

const mb = (b: number) => (b / 1024 / 1024).toFixed(1);

/** Heap after GC grows when, for some process, every sample is above the one before and the rise passes a noise floor. */
export function heapVerdict(samples: number[][]): { grows: boolean; detail: string } {
  const processes = samples[0]?.length ?? 0;
  const parts: string[] = [];
  let grows = false;
  for (let p = 0; p < processes; p++) {
    const series = samples.map((s) => s[p]).filter(Number.isFinite);
    if (series.length < 2) continue;
    const first = series[0];
    const last = series[series.length - 1];
    const rising = series.length >= 3 && series.every((v, i) => i === 0 || v > series[i - 1]);
    const floor = Math.max(2 * 1024 * 1024, first * 0.05);
    const g = rising && last - first > floor;
    grows ||= g;
    parts.push(`p${p} ${mb(first)} -> ${mb(last)} MB${g ? ' (rising at every sample)' : ''}`);
  }
  return { grows, detail: parts.join(', ') };
}

export async function main(opts: LoadBenchOptions = parseArgs(process.argv.slice(2))) {
  const databaseUrl = process.env.BENCH_DATABASE_URL || DEFAULT_DB;
  const redisUrl = process.env.BENCH_REDIS_URL || DEFAULT_REDIS;
  if (!process.env.BENCH_DATABASE_URL) await recreateDatabase(databaseUrl);
  const soakSeconds = opts.soakSeconds;
  const sampleEvery = Math.min(60, Math.max(10, Math.floor(soakSeconds / 4)));
  const heap = heapSampler();
  let fixture: Fixture | undefined;
  const results: { instances: number; steps: StepResult[] }[] = [];
  const soakSamples: number[][] = [];
  const configs = [...opts.instances];
  const soakOn = Math.max(...configs);

  console.log(
    `load: PostgreSQL ${databaseUrl.replace(/\/\/[^@/]*@/, '//')}, Redis ${redisUrl}; open loop, ${opts.stepSeconds} s per step, requests due at a fixed rate and timed from when they were due`,
  );
  for (const n of configs) {
    const cluster = await startCluster({
      instances: n,
      databaseUrl,
      redisUrl,
      env: { API_RATE_LIMIT: '1000000000', LOG_LEVEL: 'error' },
      nodeArgs: ['--expose-gc'],
      imports: ['./bench/cluster/heap-reporter.ts'],
      onLine: (index, line) => heap.onLine(index, line),
    });
    const pools: Pool[] = openPools(cluster.urls, 64, TIMEOUT_MS);
    try {
      fixture ??= await seed(databaseUrl);
      const build = workload(fixture);
      // Warm up: JIT, pools, site caches.
      await runOpenLoop({
        pools,
        rate: 50,
        durationMs: 2000,
        maxInFlight: MAX_IN_FLIGHT,
        timeoutMs: TIMEOUT_MS,
        build,
      });
      const steps: StepResult[] = [];
      if (opts.steps) {
        console.log(`\n== ${n} process${n > 1 ? 'es' : ''}`);
        for (const rate of opts.rates) {
          const r = await runOpenLoop({
            pools,
            rate,
            durationMs: opts.stepSeconds * 1000,
            maxInFlight: MAX_IN_FLIGHT,
            timeoutMs: TIMEOUT_MS,
            build,
          });
          steps.push(r);
          console.log(stepLine(`  ${n}p`, r));
          console.log(opsLine(r));
          if (r.samples.length) console.log(`      first errors: ${r.samples.join(' | ')}`);
        }
      }
      results.push({ instances: n, steps });

      if (n === soakOn && soakSeconds > 0) {
        console.log(
          `\n== soak: ${n} process${n > 1 ? 'es' : ''} at ${opts.soakRate} req/s for ${soakSeconds} s; heap used after a full GC every ${sampleEvery} s`,
        );
        soakSamples.push(await heap.sample(cluster));
        console.log(`  t=   0 s  heap after GC: ${soakSamples[0].map((b, i) => `p${i} ${mb(b)} MB`).join('  ')}`);
        for (let t = 0; t < soakSeconds;) {
          const window = Math.min(sampleEvery, soakSeconds - t);
          const r = await runOpenLoop({
            pools,
            rate: opts.soakRate,
            durationMs: window * 1000,
            maxInFlight: MAX_IN_FLIGHT,
            timeoutMs: TIMEOUT_MS,
            build,
          });
          t += window;
          const h = await heap.sample(cluster);
          soakSamples.push(h);
          console.log(
            `  t=${String(t).padStart(4)} s  heap after GC: ${h.map((b, i) => `p${i} ${mb(b)} MB`).join('  ')}   | ${stepLine('', r).trim()}`,
          );
        }
        const v = heapVerdict(soakSamples);
        console.log(
          `verdict: heap after GC ${v.grows ? 'GROWS step over step' : 'does not grow step over step'}: ${v.detail}`,
        );
      }
    } finally {
      await Promise.all(pools.map((p) => p.close()));
      await cluster.stop();
    }
  }
  if (results.length === 2 && opts.steps) {
    const [one, many] = results as [(typeof results)[0], (typeof results)[0]];
    console.log(
      `\nachieved req/s by offered rate (${one.instances}p vs ${many.instances}p): ${opts.rates.map((r, i) => `${r}: ${fmt(one.steps[i]?.achieved ?? NaN, 0)} vs ${fmt(many.steps[i]?.achieved ?? NaN, 0)}`).join(', ')}`,
    );
  }
  return { results, soakSamples, heap: soakSamples.length ? heapVerdict(soakSamples) : undefined };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    await main();
    process.exit(0);
  } catch (err) {
    console.error(`bench/load.ts failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
