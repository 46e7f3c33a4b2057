import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from '../helpers/http.ts';
import {
  assertEmbeddedDatabaseFree,
  DatabaseLockedError,
  embeddedLockPath,
  EXIT_DATABASE_LOCKED,
  lockEmbeddedDatabase,
} from '../../src/db/lock.ts';

const root = path.resolve(import.meta.dirname, '../..');
/** The service's entry point. */
const entry = 'bin/server.ts';
const dirs: string[] = [];
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lock-'));
  dirs.push(dir);
  return dir;
}

function env(dataDir: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    PORT: '0',
  };
}

/** Starts the service on embedded defaults and waits for its URL. */
function startService(dataDir: string): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: root,
    env: env(dataDir),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 180 s:\n${out}`)), 180_000);
    child.stdout.on('data', () => {
      const m = /Listening on (http:\/\/localhost:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1], output: () => out });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${out}`));
    });
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

/** Runs `npm run cli -- ...args` as its own process. */
function cli(dataDir: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: root,
    env: env(dataDir),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('the embedded database has one owner', () => {
  it('the CLI refuses cleanly while the service runs, and the service restarts with its data', async () => {
    const dataDir = tempDir();
    const first = await startService(dataDir);
    const key = /API key \(shown once, keep it\): (ak_\S+)/.exec(first.output())?.[1];
    expect(key).toBeDefined();
    const prefix = key!.split('_').slice(0, 2).join('_');
    expect((await request(`${first.url}/api/v1/account`, { key })).status).toBe(200);

    // A second service on the same directory waits for a crashed holder's lock to go stale,
    // then gives up without opening the database.
    const secondService = startService(dataDir).then(
      () => null,
      (err: Error) => err.message,
    );

    for (const args of [['key:list'], ['key:revoke', prefix], ['migrate']]) {
      const run = await cli(dataDir, ...args);
      expect(run.code).toBe(EXIT_DATABASE_LOCKED);
      expect(run.stdout).toBe('');
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^error: The embedded database in .* is in use by another process/);
    }
    // The refused revocation did not happen: the key still works.
    expect((await request(`${first.url}/api/v1/account`, { key })).status).toBe(200);
    const refused = await secondService;
    expect(refused).toMatch(/exited with 1/);
    expect(refused).toContain('is in use by another process');
    expect((await request(`${first.url}/api/v1/account`, { key })).status).toBe(200);

    expect(await stop(first.child)).toBe(0);
    expect(first.output()).not.toMatch(/closing database failed|Aborted/);
    expect(existsSync(embeddedLockPath(dataDir))).toBe(false);

    const second = await startService(dataDir);
    expect(second.output()).not.toContain('API key (shown once');
    expect((await request(`${second.url}/api/v1/account`, { key })).status).toBe(200);
    expect(await stop(second.child)).toBe(0);

    // With the service stopped the CLI owns the database and does its work.
    const listed = await cli(dataDir, 'key:list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(prefix);
  }, 600_000);

  it('a second holder is refused; a lock left by a crashed process is taken over once stale', async () => {
    const dataDir = tempDir();
    const held = await lockEmbeddedDatabase(dataDir);
    await expect(lockEmbeddedDatabase(dataDir)).rejects.toBeInstanceOf(DatabaseLockedError);
    await expect(assertEmbeddedDatabaseFree(dataDir)).rejects.toBeInstanceOf(DatabaseLockedError);
    await held.release();
    await expect(assertEmbeddedDatabaseFree(dataDir)).resolves.toBeUndefined();

    // A crash leaves the lock directory behind and stops refreshing it.
    const crashed = tempDir();
    mkdirSync(embeddedLockPath(crashed));
    await expect(assertEmbeddedDatabaseFree(crashed)).rejects.toBeInstanceOf(DatabaseLockedError);
    const old = new Date(Date.now() - 60_000);
    utimesSync(embeddedLockPath(crashed), old, old);
    await expect(assertEmbeddedDatabaseFree(crashed)).resolves.toBeUndefined();
    const taken = await lockEmbeddedDatabase(crashed);
    await taken.release();
  }, 60_000);
});
