import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freshPostgresDatabase } from './services.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Most output kept per instance (the tail), so a chatty child cannot grow the parent. */
const OUTPUT_LIMIT = 256 * 1024;

/**
 * `base` (a redis:// URL) with its logical database set to `db`. bin/server.ts always writes
 * under the default key prefix (there is no KEY_PREFIX variable), so test files and
 * benchmarks that run clusters side by side keep apart by logical database instead.
 */
export function redisDbUrl(base: string, db: number): string {
  const url = new URL(base);
  url.pathname = `/${db}`;
  return url.toString();
}

export interface ClusterOptions {
  /** Number of service processes (default 3). */
  instances?: number;
  /** Redis for every instance, usually from `redisDbUrl` (required: memory stores are per process). */
  redisUrl: string;
  /** A database to use as it is. Without it, `adminUrl` gets a fresh database, dropped by `stop()`. */
  databaseUrl?: string;
  /** PostgreSQL server on which to create the fresh database (default TEST_DATABASE_URL). */
  adminUrl?: string;
  /** Shared TOKEN_KEY (64 hex); random by default. */
  tokenKey?: string;
  /** Extra environment for every instance (ANALYZER_ALLOW_PRIVATE, API_RATE_LIMIT, ...). */
  env?: Record<string, string>;
  /** Node flags placed before `--import tsx` (e.g. `--expose-gc`, more `--import`s go after it). */
  nodeArgs?: string[];
  /** Extra `--import` modules loaded after tsx (paths relative to the project root). */
  imports?: string[];
  /** Called with each stdout line of each instance. */
  onLine?: (index: number, line: string) => void;
  /** How long one instance may take to print its URL (default 60 s). */
  startTimeoutMs?: number;
}

export interface Instance {
  index: number;
  url: string;
  port: number;
  child: ChildProcess;
  /** stdout and stderr so far (the tail). */
  output(): string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code (null when killed). */
  stop(graceMs?: number): Promise<number | null>;
  /** SIGKILL at once. */
  kill(): Promise<void>;
}

export interface Cluster {
  instances: Instance[];
  urls: string[];
  /** The API key the bootstrapping instance printed (exactly one prints it on a fresh database). */
  apiKey: string | undefined;
  /** How many instances printed an API key. */
  keysPrinted: number;
  databaseUrl: string;
  redisUrl: string;
  tokenKey: string;
  /** Round-robin over the instances' URLs. */
  pick(): string;
  /** Stops every instance still running and drops the fresh database, if one was made. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;
function killOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

interface Started {
  instance: Instance;
  apiKey?: string;
}

function startInstance(index: number, env: Record<string, string>, opts: ClusterOptions): Promise<Started> {
  const args = [
    ...(opts.nodeArgs ?? []),
    '--import',
    'tsx',
    ...(opts.imports ?? []).flatMap((m) => ['--import', pathToImport(m)]),
    'bin/server.ts',
  ];
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  killOnExit();
  let out = '';
  const append = (d: Buffer | string) => {
    out += d.toString();
    if (out.length > OUTPUT_LIMIT) out = out.slice(-OUTPUT_LIMIT / 2);
  };
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    });
  });
  let apiKey: string | undefined;
  let pending = '';
  let onListening: ((port: number) => void) | undefined;
  child.stdout.on('data', (d: Buffer) => {
    append(d);
    pending += d.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const key = /^API key \(shown once, keep it\): (ak_\S+)/.exec(line);
      if (key) apiKey = key[1];
      const listening = /Listening on http:\/\/localhost:(\d+)/.exec(line);
      if (listening) onListening?.(Number(listening[1]));
      opts.onLine?.(index, line);
    }
  });
  child.stderr.on('data', append);

  const stop = async (graceMs = 15_000): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await exited;
  };

  const timeoutMs = opts.startTimeoutMs ?? 60_000;
  return new Promise<Started>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`instance ${index} did not listen within ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    onListening = (port) => {
      clearTimeout(timer);
      const url = `http://127.0.0.1:${port}`;
      resolve({ apiKey, instance: { index, url, port, child, output: () => out, exited, stop, kill } });
    };
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`instance ${index} exited with ${code} before listening:\n${out}`));
    });
  });
}

function pathToImport(m: string): string {
  return m.startsWith('.') || m.startsWith('/') ? pathToFileURL(path.resolve(root, m)).href : m;
}

/**
 * Starts `instances` service processes (`node --import tsx bin/server.ts`) at once on
 * loopback ports, against one PostgreSQL database and one Redis, sharing TOKEN_KEY, with
 * TRUST_PROXY=true (so tests pick client addresses with X-Forwarded-For). Resolves once
 * every instance listens. Starting them together also exercises concurrent first starts
 * (migrations and the initial account) on an empty database.
 */
export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const count = opts.instances ?? 3;
  const adminUrl = opts.adminUrl ?? process.env.TEST_DATABASE_URL;
  let fresh: { url: string; drop(): Promise<void> } | undefined;
  if (!opts.databaseUrl) {
    if (!adminUrl) throw new Error('startCluster needs databaseUrl, adminUrl or TEST_DATABASE_URL');
    fresh = await freshPostgresDatabase(adminUrl);
  }
  const databaseUrl = opts.databaseUrl ?? fresh!.url;
  const tokenKey = opts.tokenKey ?? randomBytes(32).toString('hex');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    REDIS_URL: opts.redisUrl,
    TOKEN_KEY: tokenKey,
    TRUST_PROXY: 'true',
    LOG_LEVEL: 'warn',
    SHUTDOWN_TIMEOUT_MS: '5000',
    ...opts.env,
  };
  const results = await Promise.allSettled(Array.from({ length: count }, (_, i) => startInstance(i, env, opts)));
  const started = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((s) => s.instance.kill()));
    await fresh?.drop().catch(() => {});
    throw failed.reason;
  }
  const instances = started.map((s) => s.instance);
  const keys = started.flatMap((s) => (s.apiKey ? [s.apiKey] : []));
  let next = 0;
  return {
    instances,
    urls: instances.map((i) => i.url),
    apiKey: keys[0],
    keysPrinted: keys.length,
    databaseUrl,
    redisUrl: opts.redisUrl,
    tokenKey,
    pick() {
      const url = instances[next % instances.length].url;
      next++;
      return url;
    },
    async stop() {
      await Promise.all(instances.map((i) => i.stop()));
      await fresh?.drop();
    },
  };
}
