// Two builds of the service side by side: the service compiled at a git commit against the
// working tree, each in its own process, driven in alternating wrk rounds (the order flips
// each round), so that load from elsewhere on a shared machine falls on both alike. A change
// of a few percent shows here where separate bench runs move by ten.
//   npx tsx bench/compare.ts <commit> [siteverify|v2|v3] [rounds]
//   BENCH_REDIS_URL=redis://127.0.0.1:6379  both on Redis (default: memory stores)
//   BENCH_CPU_PROF=dir  a CPU profile of each (dir/A, dir/B) and their top self time, before and after
// Not part of `npm run bench`: it compares code, it does not measure a target.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { npmStartArguments } from './lib/child.ts';
import { buildCommitAndTree, root } from './lib/worktree.ts';
import { challengeRequests, siteverifyRequests } from './lib/requests.ts';
import { fmt } from './lib/load.ts';
import { runWrk, runWrkMeasured, type WrkRequest } from './lib/wrk.ts';
import { monotonicUs, newestProfile, printTopSelfTime } from './lib/cpu-profile.ts';

const [commit, kind = 'siteverify', roundsArg = '6'] = process.argv.slice(2);
const ROUNDS = Number(roundsArg);
const CONNECTIONS = 64;
const SECONDS = 3;

interface Service {
  child: ChildProcess;
  info: { port: number; sitekey: string; secret: string; tokenKey: string };
}

const PROFILE_DIR = process.env.BENCH_CPU_PROF;

/** Node flags writing a CPU profile into PROFILE_DIR/label, when set. */
function profileFlags(label: string): string[] {
  if (!PROFILE_DIR) return [];
  mkdirSync(path.join(PROFILE_DIR, label), { recursive: true });
  return ['--cpu-prof', '--cpu-prof-dir', path.join(PROFILE_DIR, label)];
}

async function start(dir: string, label: string): Promise<Service> {
  const child = spawn(
    process.execPath,
    [
      ...npmStartArguments().filter((a) => a.startsWith('--')),
      ...profileFlags(label),
      path.join(dir, 'dist/bench/servers/service.js'),
    ],
    {
      cwd: dir,
      env: { ...process.env, BENCH_REDIS_URL: process.env.BENCH_REDIS_URL ?? '', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const info = await new Promise<Service['info']>((resolve) =>
    createInterface({ input: child.stdout }).once('line', (line) => resolve(JSON.parse(line) as Service['info'])),
  );
  return { child, info };
}

/** `n` requests for `service`: fresh tokens under its key for siteverify, challenge bodies otherwise. */
const requests = (service: Service, n: number): WrkRequest[] =>
  kind === 'siteverify'
    ? siteverifyRequests(service.info, n)
    : challengeRequests(kind as 'v2' | 'v3', service.info.sitekey, 'https://bench.example', n);

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

if (!commit || !['siteverify', 'v2', 'v3'].includes(kind)) {
  console.error('usage: npx tsx bench/compare.ts <commit> [siteverify|v2|v3] [rounds]');
  process.exit(2);
}
const built = buildCommitAndTree(commit);
const services: Service[] = [];
try {
  const [a, b] = [await start(built.dir, 'A'), await start(root, 'B')];
  services.push(a, b);
  const requestsPerRound = kind === 'siteverify' ? 90_000 : 30_000;
  const named: Array<[string, Service]> = [
    [`A (${commit})`, a],
    ['B (working tree)', b],
  ];
  const sums = new Map<string, { rps: number; cpu: number }>();
  // B's figure over A's in each round: the two ran seconds apart, under the same load.
  const perRound: Array<{ rps: number; cpu: number }> = [];
  for (const [name, s] of named) {
    await runWrk({
      url: `http://127.0.0.1:${s.info.port}`,
      connections: CONNECTIONS,
      durationSec: 1,
      requests: requests(s, 5000),
    });
    sums.set(name, { rps: 0, cpu: 0 });
  }
  const window = { fromUs: monotonicUs(), toUs: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    const got = new Map<Service, { rps: number; cpu: number }>();
    for (const [name, s] of round % 2 ? [...named].reverse() : named) {
      const r = await runWrkMeasured(s.child.pid!, {
        url: `http://127.0.0.1:${s.info.port}`,
        connections: CONNECTIONS,
        durationSec: SECONDS,
        requests: requests(s, requestsPerRound),
      });
      got.set(s, { rps: r.rps, cpu: r.cpuUsPerRequest });
      const sum = sums.get(name)!;
      sum.rps += r.rps;
      sum.cpu += r.cpuUsPerRequest;
      console.log(
        `${name.padEnd(24)} ${fmt(r.rps, 0).padStart(7)} req/s   CPU ${fmt(r.cpuUsPerRequest, 1)} µs/req   p99 ${fmt(r.p99, 1)} ms`,
      );
    }
    const [ra, rb] = [got.get(a)!, got.get(b)!];
    perRound.push({ rps: rb.rps / ra.rps, cpu: rb.cpu / ra.cpu });
  }
  window.toUs = monotonicUs();
  const [sa, sb] = named.map(([name]) => sums.get(name)!);
  console.log(
    `${kind}, ${ROUNDS} rounds each: A ${fmt(sa.rps / ROUNDS, 0)} req/s, ${fmt(sa.cpu / ROUNDS, 1)} µs/req; B ${fmt(sb.rps / ROUNDS, 0)} req/s, ${fmt(sb.cpu / ROUNDS, 1)} µs/req; B/A ${fmt(sb.rps / sa.rps, 3)}`,
  );
  // A slow spell that falls on one round moves the means; the median of the rounds' ratios less.
  console.log(
    `median of the rounds' B/A: req/s ${fmt(median(perRound.map((r) => r.rps)), 3)}, CPU a request ${fmt(median(perRound.map((r) => r.cpu)), 3)} (rounds: ${perRound.map((r) => fmt(r.rps, 2)).join(' ')})`,
  );
  // A profile is written when its process exits; both ran over the same rounds.
  await Promise.all(services.map((s) => new Promise((done) => (s.child.once('exit', done), s.child.kill('SIGTERM')))));
  for (const label of PROFILE_DIR ? ['A', 'B'] : []) {
    const file = newestProfile(path.join(PROFILE_DIR!, label));
    if (!file) continue;
    console.log(`${label === 'A' ? `A (${commit})` : 'B (working tree)'}:`);
    printTopSelfTime(file, 15, window);
  }
} finally {
  for (const s of services) if (s.child.exitCode === null) s.child.kill('SIGTERM');
  built.remove();
}
