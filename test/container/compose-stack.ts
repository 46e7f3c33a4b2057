// The compose test's hands (test/container/compose.ts): podman-compose and podman run as an
// operator runs them, each with a deadline, and HTTP through Caddy or inside one instance.
import { execFileSync, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** What a command printed; throws with its output when it fails or outlives `timeoutMs`. */
export function run(cmd: string, args: string[], opts: { cwd?: string; timeoutMs?: number; input?: string } = {}) {
  const res = spawnSync(cmd, args, {
    cwd: opts.cwd,
    input: opts.input,
    encoding: 'utf8',
    timeout: opts.timeoutMs ?? 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const out = `${res.stdout ?? ''}${res.stderr ?? ''}`;
  if (res.error || res.status !== 0) {
    const why = res.error ? res.error.message : `exit ${res.status}`;
    throw new Error(`${cmd} ${args.join(' ')}: ${why}\n${out.slice(-3000)}`);
  }
  return res.stdout;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` every `everyMs` until it is true; throws naming `what` after `timeoutMs`. */
export async function until(what: string, timeoutMs: number, probe: () => Promise<boolean> | boolean, everyMs = 500) {
  const started = performance.now();
  for (;;) {
    try {
      if (await probe()) return performance.now() - started;
    } catch {
      // not yet
    }
    if (performance.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await sleep(everyMs);
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface Answer {
  status: number;
  body: any; // checked field by field by the callers
}

export async function json(url: string, init: RequestInit & { key?: string } = {}): Promise<Answer> {
  const headers = new Headers(init.headers);
  if (init.key) headers.set('Authorization', `Bearer ${init.key}`);
  if (init.body) headers.set('Content-Type', 'application/json');
  const res = await fetch(url, { ...init, headers, signal: init.signal ?? AbortSignal.timeout(30_000) });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}

// Runs in an instance (its own node): one request to itself, its answer as JSON on stdout.
const IN_CONTAINER = `let s='';process.stdin.on('data',d=>s+=d).on('end',async()=>{const q=JSON.parse(s);
const r=await fetch('http://127.0.0.1:3000'+q.path,{method:q.method,headers:q.headers,body:q.body});
const t=await r.text();let b=t;try{b=JSON.parse(t)}catch{}process.stdout.write(JSON.stringify({status:r.status,body:b}))})`;

/** A project of compose.yaml under podman-compose, in the checkout `dir`. */
export class Stack {
  constructor(
    readonly project: string,
    readonly dir: string,
    readonly base: string,
    private readonly buildArgs: string,
  ) {}

  /** `podman-compose -p PROJECT ARGS`, from the checkout. It exits 0 even when a podman step failed. */
  compose(args: string[], timeoutMs = 120_000): string {
    return run('podman-compose', ['-p', this.project, ...args], { cwd: this.dir, timeoutMs });
  }

  /** `podman-compose ... up -d [--build] [services]` with the build secrets; a failed image build throws. */
  up(services: string[] = [], opts: { build?: boolean } = {}, timeoutMs = 600_000): string {
    const args = ['--podman-build-args', this.buildArgs, 'up', '-d', ...(opts.build ? ['--build'] : []), ...services];
    const out = this.compose(args, timeoutMs);
    if (/^podman build[^]*?^exit code: [1-9]/m.test(out))
      throw new Error(`the image build failed:\n${out.slice(-3000)}`);
    return out;
  }

  container(service: string): string {
    return `${this.project}_${service}_1`;
  }

  /** One run of the service's health check, as `podman healthcheck run` (nothing schedules them here). */
  healthy(service: string): boolean {
    return spawnSync('podman', ['healthcheck', 'run', this.container(service)], { timeout: 20_000 }).status === 0;
  }

  /** Every service's health check passes and Caddy answers /readyz. */
  async ready(timeoutMs: number): Promise<number> {
    return until(`${this.project} ready`, timeoutMs, async () => {
      for (const s of ['postgres', 'valkey', 'app1', 'app2']) if (!this.healthy(s)) return false;
      return (await json(`${this.base}/readyz`)).status === 200;
    });
  }

  /** One request from inside `service` to its own port, around Caddy. */
  inside(service: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown }) {
    const headers = { ...(init.headers ?? {}), ...(init.body ? { 'Content-Type': 'application/json' } : {}) };
    const q = { path, method: init.method ?? 'GET', headers, body: init.body ? JSON.stringify(init.body) : undefined };
    const out = run('podman', ['exec', '-i', this.container(service), 'node', '-e', IN_CONTAINER], {
      input: JSON.stringify(q),
      timeoutMs: 30_000,
    });
    return JSON.parse(out) as Answer;
  }

  /**
   * Whether `service` resolves `name` the analyzer's way (c-ares, resolv.conf's servers). Under
   * podman 4.3 and aardvark-dns 1.4 here, a new network's name server has gone unanswered from
   * inside its containers for 30 to 40 s after `up` in some runs, while it answered the host.
   */
  resolves(service: string, name: string): boolean {
    const probe = `new (require('node:dns').promises.Resolver)({timeout:1000,tries:1}).resolve4(${JSON.stringify(name)}).then(()=>process.exit(0),()=>process.exit(1))`;
    return (
      spawnSync('podman', ['exec', this.container(service), 'node', '-e', probe], { timeout: 10_000 }).status === 0
    );
  }

  logs(...services: string[]): string {
    return this.compose(['logs', ...services]);
  }

  restarts(service: string): number {
    return Number(run('podman', ['inspect', '--format', '{{.RestartCount}}', this.container(service)]).trim());
  }

  /** Everything of the project gone: containers, volumes (named and anonymous), network. */
  destroy(): void {
    try {
      this.compose(['--podman-rm-args=-v', 'down', '-v', '-t', '5'], 120_000);
    } catch (err) {
      console.error(String(err));
    }
    for (const kind of ['volume', 'network']) {
      const names = execFileSync('podman', [kind, 'ls', '-q', '--filter', `name=^${this.project}_`], {
        encoding: 'utf8',
      });
      for (const n of names.split('\n').filter(Boolean)) spawnSync('podman', [kind, 'rm', '-f', n]);
    }
  }
}
