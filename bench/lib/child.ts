import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * What `npm start` passes to node (package.json's `node --flag … dist/…` command), paths made
 * absolute: benchmarks start the service as users run it.
 */
export function npmStartArguments(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const [command, ...args] = pkg.scripts.start.trim().split(/\s+/);
  if (command !== 'node') throw new Error(`npm start is not a plain node command: ${pkg.scripts.start}`);
  return args.map((a) => (a.startsWith('-') ? a : path.join(root, a)));
}

/** The V8 flags of {@link npmStartArguments}, so a benchmark's server runs with the production heap settings. */
function productionNodeFlags(): string[] {
  return npmStartArguments().filter((a) => a.startsWith('--'));
}

/**
 * Collections of a child started with `traceGc`, summed from V8's `--trace-gc-nvp` lines:
 * how often it collected, how long it paused, what it allocated and what outlived a
 * young-generation collection (promoted). Allocation and promotion per request do not
 * depend on how loaded the machine is, so they show a change that requests per second hide.
 */
export interface GcTotals {
  collections: number;
  pauseMs: number;
  allocatedBytes: number;
  promotedBytes: number;
  /** Collections V8's memory reducer started (`reduce_memory=1`): the heap shrunk once load stopped. */
  reductions: number;
  /** Every pause so far, in ms, in order (shared, not copied). */
  pauses: readonly number[];
}

/** What {@link gcSince} adds: the longest single pause, which shows up in p99 too. */
export interface GcRun extends Omit<GcTotals, 'pauses' | 'reductions'> {
  maxPauseMs: number;
}

export interface ChildServer<T> {
  info: T;
  child: ChildProcess;
  stop(): Promise<void>;
  /** Totals so far (zeros unless started with `traceGc`). */
  gc: () => GcTotals;
}

/** The totals added between two readings of {@link ChildServer.gc}. */
export function gcSince(before: GcTotals, after: GcTotals): GcRun {
  return {
    collections: after.collections - before.collections,
    pauseMs: after.pauseMs - before.pauseMs,
    maxPauseMs: Math.max(0, ...after.pauses.slice(before.collections, after.collections)),
    allocatedBytes: after.allocatedBytes - before.allocatedBytes,
    promotedBytes: after.promotedBytes - before.promotedBytes,
  };
}

const gcFields = { pause: /\bpause=([0-9.]+)/, allocated: /\ballocated=([0-9.]+)/, promoted: /\bpromoted=([0-9.]+)/ };

function addGcLine(totals: GcTotals & { pauses: number[] }, line: string): void {
  if (!line.includes(' gc=')) return;
  const field = (name: keyof typeof gcFields) => Number(gcFields[name].exec(line)?.[1] ?? 0);
  totals.collections++;
  totals.pauses.push(field('pause'));
  totals.pauseMs += field('pause');
  totals.allocatedBytes += field('allocated');
  totals.promotedBytes += field('promoted');
  if (/\breduce_memory=1\b/.test(line)) totals.reductions++;
}

/**
 * Builds the service in checkout `dir` as `npm start` does (scripts/build.ts: dist/ and the
 * widget bundles) and the benchmark servers beside it (tsconfig.bench.json).
 */
export function buildServers(dir: string = root): void {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  for (const args of [
    ['--import', 'tsx', 'scripts/build.ts'],
    [tsc, '-p', 'tsconfig.bench.json'],
  ]) {
    const done = spawnSync(process.execPath, args, { cwd: dir, stdio: 'inherit' });
    if (done.status !== 0) throw new Error(`${args.join(' ')} failed in ${dir} (${done.status ?? done.signal})`);
  }
}

let built = false;

/**
 * Starts a server script in its own process (so load generation and serving do not share an
 * event loop), with the production V8 flags (the bare baselines too, so both sides of a
 * ratio run alike), and waits for the JSON line it prints once listening. Scripts under
 * bench/servers run compiled (dist/bench/servers/*.js, plain node, as users run the service);
 * any other TypeScript script runs through tsx.
 */
export async function startChild<T>(
  script: string,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
  opts: { traceGc?: boolean } = {},
): Promise<ChildServer<T>> {
  const isServer = script.startsWith('bench/servers/');
  if (isServer && !built) {
    buildServers();
    built = true;
  }
  const entry = isServer
    ? [path.join(root, 'dist', script.replace(/\.ts$/, '.js'))]
    : ['--import', 'tsx', path.join(root, script)];
  const child = spawn(
    process.execPath,
    [...productionNodeFlags(), ...(opts.traceGc ? ['--trace-gc-nvp'] : []), ...nodeArgs, ...entry],
    {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const totals = {
    collections: 0,
    pauseMs: 0,
    allocatedBytes: 0,
    promotedBytes: 0,
    reductions: 0,
    pauses: [] as number[],
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start in 60 s`)), 60_000);
    let started = false;
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (started || !line.startsWith('{')) {
        addGcLine(totals, line);
        return;
      }
      started = true;
      clearTimeout(timer);
      resolve({
        info: JSON.parse(line) as T,
        child,
        gc: () => ({ ...totals }),
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code}`));
    });
  });
}
