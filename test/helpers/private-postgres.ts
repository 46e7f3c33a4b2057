import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './ports.ts';

/**
 * The folder holding initdb, postgres and pg_isready: PG_BIN when set, else the newest
 * /usr/lib/postgresql/<version>/bin, else the folder of an initdb on PATH. Undefined when
 * none is found.
 */
export function findPostgresBin(): string | undefined {
  const has = (dir: string) => ['initdb', 'postgres', 'pg_isready'].every((b) => existsSync(path.join(dir, b)));
  if (process.env.PG_BIN) return has(process.env.PG_BIN) ? process.env.PG_BIN : undefined;
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    const versions = readdirSync(base)
      .filter((v) => /^\d+(\.\d+)?$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) if (has(path.join(base, v, 'bin'))) return path.join(base, v, 'bin');
  }
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  const found = which.status === 0 ? path.dirname(which.stdout.trim()) : undefined;
  return found && has(found) ? found : undefined;
}

/**
 * PostgreSQL refuses to run as root. When we are root, the cluster runs as the `postgres`
 * system user (or `nobody`), owning the temporary folder.
 */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const passwd = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((l) => l.split(':'));
  const entry = passwd.find((f) => f[0] === 'postgres') ?? passwd.find((f) => f[0] === 'nobody');
  if (!entry) throw new Error('running as root and no postgres or nobody user to run PostgreSQL as');
  return { uid: Number(entry[2]), gid: Number(entry[3]) };
}

export type StopMode = 'smart' | 'fast' | 'immediate';
const stopSignal: Record<StopMode, NodeJS.Signals> = { smart: 'SIGTERM', fast: 'SIGINT', immediate: 'SIGQUIT' };

export interface PrivatePostgres {
  /** postgresql://postgres@127.0.0.1:<port>/postgres (trust auth). */
  url: string;
  port: number;
  /** Stops the server: `fast` (SIGINT), `immediate` (SIGQUIT: no checkpoint, crash recovery at the next start) or `smart`. */
  stop(mode?: StopMode): Promise<void>;
  /** Starts it again on the same port and folder; resolves once it accepts connections. */
  start(): Promise<void>;
  /** The server's recent log output. */
  log(): string;
  /** Stops it and removes its folder. */
  destroy(): Promise<void>;
}

const live = new Set<ChildProcess>();
let hooked = false;

/**
 * A PostgreSQL cluster of its own for a test that stops, restarts or breaks it (never the
 * shared server): initdb into a temporary folder (trust auth), `postgres -D <dir> -p <free
 * port> -k <dir> -c listen_addresses=127.0.0.1` as a child process. fsync is off: a stop,
 * even `immediate`, keeps every committed transaction (the OS still holds the writes).
 */
export async function privatePostgres(bin = findPostgresBin()): Promise<PrivatePostgres> {
  if (!bin) throw new Error('no PostgreSQL binaries (initdb, postgres) found; set PG_BIN');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pgpriv-'));
  const data = path.join(dir, 'data');
  const user = runAs();
  if (user) chownSync(dir, user.uid, user.gid);
  const spawnOpts: SpawnOptions = {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', LC_ALL: 'C', TZ: 'UTC' },
    ...(user ?? {}),
  };

  const init = spawnSync(
    path.join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
    {
      ...spawnOpts,
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (${init.status}): ${init.stderr || init.stdout || init.error?.message}`);
  }

  const port = await freePort();
  let child: ChildProcess | undefined;
  let out = '';
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const c of live) c.kill('SIGQUIT');
    });
  }

  const ready = () =>
    spawnSync(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-t', '1'], {
      stdio: 'ignore',
      timeout: 5000,
    }).status === 0;

  const start = async () => {
    if (child && child.exitCode === null && child.signalCode === null) return;
    out = '';
    const c = spawn(
      path.join(bin, 'postgres'),
      [
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
        '-c',
        'full_page_writes=off',
        '-c',
        'max_connections=60',
      ],
      { ...spawnOpts, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = c;
    live.add(c);
    c.once('exit', () => live.delete(c));
    const append = (d: Buffer) => {
      out = (out + d.toString()).slice(-32_768);
    };
    c.stdout.on('data', append);
    c.stderr.on('data', append);
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (c.exitCode !== null) throw new Error(`postgres exited with ${c.exitCode}:\n${out}`);
      if (ready()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`postgres did not accept connections within 30 s:\n${out}`);
  };

  const stop = async (mode: StopMode = 'fast') => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill(stopSignal[mode]);
    const timer = setTimeout(() => c.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  };

  try {
    await start();
  } catch (err) {
    await stop('immediate');
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop,
    start,
    log: () => out,
    async destroy() {
      await stop('fast');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
