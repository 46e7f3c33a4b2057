import { afterAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from './helpers/http.ts';
import { freshPostgresDatabase } from './helpers/services.ts';

const root = path.resolve(import.meta.dirname, '..');
const work = mkdtempSync(path.join(os.tmpdir(), 'build-'));
const children: ChildProcess[] = [];

const leanDirs: string[] = [];

afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  for (const dir of [work, ...leanDirs]) rmSync(dir, { recursive: true, force: true });
});

/** Packages the serving process must not need: the transpiler, the bundler, the compilers (TypeScript, WebAssembly text). */
const buildOnly = new Set(['tsx', 'esbuild', '@esbuild', 'typescript', 'vitest', 'vite', 'wabt']);

/**
 * Packages (or scopes) that only some routes or the analyzer's worker threads use, loaded on
 * first use (the check workers' src/analyzer/run-checks.ts, src/reports/passwords.ts, the analysis engine): a process
 * that starts and answers its hot routes without them installed never held them in memory.
 */
const loadedOnUse = new Set(['tldts', 'robots-parser', '@node-rs', 'jimp', '@jimp', 'playwright-core', 'cheerio']);

/** A node_modules of links to every installed package except the build-only ones (and `omit`). */
function productionModules(into: string, omit: ReadonlySet<string> = new Set()): void {
  mkdirSync(into);
  const from = path.join(root, 'node_modules');
  for (const name of readdirSync(from)) {
    if (buildOnly.has(name) || omit.has(name) || name === '.bin') continue;
    symlinkSync(path.join(from, name), path.join(into, name));
  }
}

/**
 * Starts the compiled service built into `work`/dist with `env` (beside PATH and HOME, on a
 * free port) and resolves once it says where it listens, with everything it printed so far.
 */
async function startCompiled(env: Record<string, string>, dir = work) {
  const child = spawn(process.execPath, [path.join(dir, 'dist', 'bin', 'server.js')], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 90 s:\n${output}`)), 90_000);
    child.stdout.on('data', () => {
      const m = /Listening on (http:\/\/localhost:\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${output}`));
    });
  });
  return { child, url, output: () => output };
}

/** Stops a started service with SIGTERM; resolves with its exit code. */
function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  return exited;
}

describe('npm run build, then the compiled start', () => {
  it('serves from dist/ with no transpiler or bundler installed beside it', async () => {
    const out = path.join(work, 'dist');
    const built = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts', '--out-dir', out], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(built.status, built.stderr + built.stdout).toBe(0);
    // Every bundle src/bundles.ts lists was built ahead.
    expect(readdirSync(path.join(out, 'public'))).toContain('widget.js');
    productionModules(path.join(work, 'node_modules'));

    const { child, url, output } = await startCompiled({ LOG_LEVEL: 'warn', DATA_DIR: path.join(work, 'data') });

    expect((await request(`${url}/readyz`)).status).toBe(200);
    const widget = await fetch(`${url}/widget.js`, { headers: { 'Accept-Encoding': 'identity' } });
    expect(widget.status).toBe(200);
    expect(Buffer.from(await widget.arrayBuffer()).equals(readFileSync(path.join(out, 'public', 'widget.js')))).toBe(
      true,
    );
    const key = /API key \(shown once, keep it\): (ak_\S+)/.exec(output())?.[1];
    expect((await request(`${url}/api/v1/account`, { key })).status).toBe(200);
    expect(await stop(child)).toBe(0);
  }, 240_000);

  it('starts and answers its hot routes without the libraries loaded on first use', async () => {
    // The dist/ the first test built, beside a node_modules without those libraries; in a
    // folder of its own, not below `work`, whose node_modules (every library) Node's resolution
    // would find next, one level up.
    const lean = mkdtempSync(path.join(os.tmpdir(), 'build-lean-'));
    leanDirs.push(lean);
    cpSync(path.join(work, 'dist'), path.join(lean, 'dist'), { recursive: true });
    productionModules(path.join(lean, 'node_modules'), loadedOnUse);
    const { child, url, output } = await startCompiled({ LOG_LEVEL: 'warn', DATA_DIR: path.join(lean, 'data') }, lean);
    expect((await request(`${url}/readyz`)).status).toBe(200);
    const key = /API key \(shown once, keep it\): (ak_\S+)/.exec(output())?.[1];
    expect((await request(`${url}/api/v1/account`, { key })).status).toBe(200);
    // Listing reports reads the check definitions (ids, weights), whose libraries stay unloaded.
    expect((await request(`${url}/api/v1/reports`, { key })).status).toBe(200);
    const origin = { Origin: 'https://lean.example', 'Content-Type': 'application/json' };
    const issued = await fetch(`${url}/api/v3/challenges`, {
      method: 'POST',
      headers: origin,
      body: JSON.stringify({ sitekey: '1x00000000000000000000AA', action: 'lean' }),
    });
    expect(issued.status).toBe(201);
    const verified = await fetch(`${url}/api/v1/siteverify`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ secret: '1x0000000000000000000000000000000AA', response: 'XXXX.DUMMY.TOKEN.XXXX' }),
    });
    expect(await verified.json()).toMatchObject({ success: true });
    expect(await stop(child)).toBe(0);
  }, 120_000);

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'migrates a new PostgreSQL database at its first start, then serves',
    async () => {
      const db = await freshPostgresDatabase(process.env.TEST_DATABASE_URL!);
      try {
        const { child, url, output } = await startCompiled({ LOG_LEVEL: 'info', DATABASE_URL: db.url });
        // Every migration was applied (the service logs their names) and the schema serves.
        expect(output()).toContain('migrations applied');
        expect(output()).toContain('Migration20261121101430');
        expect((await request(`${url}/readyz`)).status).toBe(200);
        const key = /API key \(shown once, keep it\): (ak_\S+)/.exec(output())?.[1];
        expect((await request(`${url}/api/v1/account`, { key })).status).toBe(200);
        expect(await stop(child)).toBe(0);
      } finally {
        await db.drop();
      }
    },
    120_000,
  );
});
