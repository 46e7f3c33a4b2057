import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ConfigError, loadConfig, redactSecrets } from '../src/config.ts';

const root = path.resolve(import.meta.dirname, '..');

function messageOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('no error');
}

describe('config errors never echo secrets', () => {
  it.each([
    ['DATABASE_URL', 'mysql://app:hunter2-secret@db.internal:5432/x', 'mysql://app:***@db.internal:5432/x'],
    [
      'DATABASE_URL',
      'mysql://app:hunter2-secret@db/x?sslpassword=hunter2-secret',
      'mysql://app:***@db/x?sslpassword=***',
    ],
    ['DATABASE_URL', 'postgres//app:hunter2-secret@db/x', undefined],
    ['DATABASE_URL', 'mysql://app:hunter2-secret@[oops/x', undefined],
    ['REDIS_URL', 'http://:hunter2-secret@cache:6379', 'http://:***@cache:6379/'],
    ['METRICS_TOKEN', 'x'.repeat(600) + 'hunter2-secret', undefined],
  ])('%s=%s', (name, value, shown) => {
    const message = messageOf({ [name]: value });
    expect(message).toMatch(new RegExp(`^Invalid ${name}`));
    expect(message).not.toContain('hunter2-secret');
    if (shown) expect(message).toContain(`(got "${shown}")`);
    else expect(message).not.toContain('(got');
  });

  it('still shows plain values', () => {
    expect(messageOf({ PORT: 'eighty' })).toContain('(got "eighty")');
    expect(redactSecrets('postgresql://app@db/x')).toBe('postgresql://app@db/x');
  });

  it('the service stops with the redacted line, exit code 78', async () => {
    const entry = 'bin/server.ts';
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: 'mysql://app:hunter2-secret@db/x' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(78);
    expect(out).toContain('mysql://app:***@db/x');
    expect(out).not.toContain('hunter2-secret');
  }, 60_000);
});
