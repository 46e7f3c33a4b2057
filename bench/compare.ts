// Two builds of the service side by side: the service compiled at a git commit against the
// working tree, each in its own process, driven in alternating wrk rounds (the order flips
// each round), so that load from elsewhere on a shared machine falls on both alike. A change
// of a few percent shows here where separate bench runs move by ten.
//   npx tsx bench/compare.ts <commit> [siteverify|v2|v3] [rounds]
//   BENCH_REDIS_URL=redis://127.0.0.1:6379  both on Redis (default: memory stores)
// Not part of `npm run bench`: it compares code, it does not measure a target.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { buildServers, npmStartArguments } from './lib/child.ts';
import { challengeRequests, siteverifyRequests } from './lib/requests.ts';
import { fmt } from './lib/load.ts';
import { runWrk, runWrkMeasured, type WrkRequest } from './lib/wrk.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [commit, kind = 'siteverify', roundsArg = '6'] = process.argv.slice(2);
const ROUNDS = Number(roundsArg);
const CONNECTIONS = 64;
const SECONDS = 3;

interface Service {
  child: ChildProcess;
  info: { port: number; sitekey: string; secret: string; tokenKey: string };
}

async function start(dir: string): Promise<Service> {
  const child = spawn(
    process.execPath,
    [...npmStartArguments().filter((a) => a.startsWith('--')), path.join(dir, 'dist/bench/servers/service.js')],
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

if (!commit || !['siteverify', 'v2', 'v3'].includes(kind)) {
  console.error('usage: npx tsx bench/compare.ts <commit> [siteverify|v2|v3] [rounds]');
  process.exit(2);
}
const base = mkdtempSync(path.join(os.tmpdir(), 'compare-'));
const services: Service[] = [];
try {
  const added = spawnSync('git', ['worktree', 'add', '--detach', base, commit], { cwd: root, stdio: 'inherit' });
  if (added.status !== 0) throw new Error(`git worktree add ${commit} failed`);
  symlinkSync(path.join(root, 'node_modules'), path.join(base, 'node_modules'));
  // A commit from before the compiled bench servers gets today's way to build them.
  if (!existsSync(path.join(base, 'tsconfig.bench.json')))
    copyFileSync(path.join(root, 'tsconfig.bench.json'), path.join(base, 'tsconfig.bench.json'));
  buildServers(base);
  buildServers(root);
  const [a, b] = [await start(base), await start(root)];
  services.push(a, b);
  const perRound = kind === 'siteverify' ? 90_000 : 30_000;
  const named: Array<[string, Service]> = [
    [`A (${commit})`, a],
    ['B (working tree)', b],
  ];
  const sums = new Map<string, { rps: number; cpu: number }>();
  for (const [name, s] of named) {
    await runWrk({
      url: `http://127.0.0.1:${s.info.port}`,
      connections: CONNECTIONS,
      durationSec: 1,
      requests: requests(s, 5000),
    });
    sums.set(name, { rps: 0, cpu: 0 });
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, s] of round % 2 ? [...named].reverse() : named) {
      const r = await runWrkMeasured(s.child.pid!, {
        url: `http://127.0.0.1:${s.info.port}`,
        connections: CONNECTIONS,
        durationSec: SECONDS,
        requests: requests(s, perRound),
      });
      const sum = sums.get(name)!;
      sum.rps += r.rps;
      sum.cpu += r.cpuUsPerRequest;
      console.log(
        `${name.padEnd(24)} ${fmt(r.rps, 0).padStart(7)} req/s   CPU ${fmt(r.cpuUsPerRequest, 1)} µs/req   p99 ${fmt(r.p99, 1)} ms`,
      );
    }
  }
  const [sa, sb] = named.map(([name]) => sums.get(name)!);
  console.log(
    `${kind}, ${ROUNDS} rounds each: A ${fmt(sa.rps / ROUNDS, 0)} req/s, ${fmt(sa.cpu / ROUNDS, 1)} µs/req; B ${fmt(sb.rps / ROUNDS, 0)} req/s, ${fmt(sb.cpu / ROUNDS, 1)} µs/req; B/A ${fmt(sb.rps / sa.rps, 3)}`,
  );
} finally {
  for (const s of services) s.child.kill('SIGTERM');
  spawnSync('git', ['worktree', 'remove', '--force', base], { cwd: root });
  rmSync(base, { recursive: true, force: true });
}
