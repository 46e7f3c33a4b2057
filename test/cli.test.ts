import { afterAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../src/cli.ts';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cli-'));
const saved = { ...process.env };
process.env.DATA_DIR = dataDir;
delete process.env.DATABASE_URL;
delete process.env.REDIS_URL;

afterAll(() => {
  process.env = saved;
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs a CLI command in-process and returns its exit code and stdout lines. */
async function cli(...argv: string[]) {
  const out: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void out.push(String(line)));
  const err = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    return { code: await runCli(argv), out };
  } finally {
    log.mockRestore();
    err.mockRestore();
  }
}

describe('npm run cli', () => {
  it('creates users and keys, lists and revokes keys, manages sites', async () => {
    expect((await cli('migrate')).code).toBe(0);
    const user = await cli('user:create', '--name', 'Ada', '--email', 'ada@example.com');
    expect(user.code).toBe(0);
    expect(JSON.parse(user.out[0])).toMatchObject({ name: 'Ada', email: 'ada@example.com' });

    const key = await cli('key:create', '--user', 'ada@example.com', '--name', 'laptop');
    expect(key.code).toBe(0);
    const prefix = JSON.parse(key.out[0]).prefix as string;
    expect(key.out[1]).toMatch(/^API key \(shown once, keep it\): ak_[0-9a-f]{10}_/);

    const listed = await cli('key:list', '--user', 'ada@example.com');
    expect(listed.out.map((l) => JSON.parse(l).prefix)).toEqual([prefix]);
    expect(listed.out.join('\n')).not.toContain(key.out[1].split(': ')[1]);

    const revoked = await cli('key:revoke', prefix);
    expect(JSON.parse(revoked.out[0]).revoked_at).not.toBeNull();
    expect((await cli('key:revoke', 'ak_ffffffffff')).code).toBe(2);

    const site = await cli(
      'site:create',
      '--user',
      'ada@example.com',
      '--name',
      'Shop',
      '--origin',
      'https://shop.example',
    );
    expect(site.code).toBe(0);
    const sitekey = JSON.parse(site.out[0]).sitekey as string;
    expect(site.out[1]).toMatch(/^Site secret \(shown once, keep it\): sec_/);
    const stricter = await cli(
      'site:update',
      sitekey,
      '--user',
      'ada@example.com',
      '--security-level',
      'high',
      '--min-work-bits',
      '24',
      '--min-score',
      '0.7',
    );
    expect(JSON.parse(stricter.out[0])).toMatchObject({ security_level: 'high', min_work_bits: 24, min_score: 0.7 });
    expect((await cli('site:update', sitekey, '--user', 'ada@example.com', '--min-score', '0.333')).code).toBe(2);
    expect((await cli('site:update', sitekey, '--user', 'ada@example.com', '--security-level', 'extreme')).code).toBe(
      2,
    );
    expect((await cli('site:rotate', sitekey, '--user', 'ada@example.com')).out[1]).toMatch(/^Site secret/);
    expect((await cli('site:list', '--user', 'ada@example.com')).out).toHaveLength(1);
    expect((await cli('site:delete', sitekey, '--user', 'ada@example.com')).code).toBe(0);
    expect((await cli('site:list', '--user', 'ada@example.com')).out).toHaveLength(0);
  }, 240_000);

  it('refuses unknown commands and missing options', async () => {
    expect((await cli('nope')).code).toBe(2);
    expect((await cli('user:create')).code).toBe(2);
    expect((await cli('key:create', '--user', 'nobody@example.com')).code).toBe(2);
  }, 240_000);
});
