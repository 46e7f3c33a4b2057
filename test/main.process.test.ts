import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from './helpers/http.ts';

const root = path.resolve(import.meta.dirname, '..');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'main-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/** Starts `bin/server.ts` as `npm start` would, on embedded defaults, and waits for its URL. */
function startMain(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/server.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 45 s:\n${out}`)), 45_000);
    const check = () => {
      const m = /Listening on (http:\/\/localhost:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1], output: () => out });
      }
    };
    child.stdout.on('data', check);
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

describe('npm start on embedded defaults', () => {
  it('prints a key once, serves the account, and keeps data across a restart', async () => {
    const first = await startMain({ DATA_DIR: dataDir, PORT: '0' });
    const key = /API key \(shown once, keep it\): (ak_\S+)/.exec(first.output())?.[1];
    expect(key).toBeDefined();
    expect((await request(`${first.url}/api/v1/account`, { key })).status).toBe(200);
    expect((await request(`${first.url}/api/v1/account`)).status).toBe(401);
    expect(await stop(first.child)).toBe(0);

    const second = await startMain({ DATA_DIR: dataDir, PORT: '0' });
    expect(second.output()).not.toContain('API key (shown once');
    expect((await request(`${second.url}/api/v1/account`, { key })).status).toBe(200);
    expect(await stop(second.child)).toBe(0);
  }, 120_000);

  it('stops with one clear line naming a bad variable', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/server.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', PORT: 'eighty' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(78);
    expect(err.trim().split('\n')).toEqual([
      expect.stringMatching(/^Configuration error: Invalid PORT \(got "eighty"\)/),
    ]);
  }, 60_000);
});
