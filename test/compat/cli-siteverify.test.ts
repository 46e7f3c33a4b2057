/** `--siteverify-per-minute` on site:create and site:update (issue 14). */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../src/cli.ts';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cli-sv-'));
const saved = { ...process.env };
process.env.DATA_DIR = dataDir;
delete process.env.DATABASE_URL;
delete process.env.REDIS_URL;

afterAll(() => {
  process.env = saved;
  rmSync(dataDir, { recursive: true, force: true });
});

async function cli(...argv: string[]) {
  const out: string[] = [];
  const errors: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void out.push(String(line)));
  const err = vi.spyOn(console, 'error').mockImplementation((line: string) => void errors.push(String(line)));
  try {
    return { code: await runCli(argv), out, errors };
  } finally {
    log.mockRestore();
    err.mockRestore();
  }
}

describe('site commands and the siteverify limit', () => {
  it('sets, raises and resets a site’s siteverify limit', async () => {
    expect((await cli('user:create', '--name', 'Ada', '--email', 'ada@example.com')).code).toBe(0);
    const created = await cli(
      'site:create',
      '--user',
      'ada@example.com',
      '--name',
      'Shop',
      '--origin',
      'https://shop.example',
    );
    const site = JSON.parse(created.out[0]);
    expect(site.siteverify_per_minute).toBeNull();
    const raised = await cli(
      'site:update',
      site.sitekey,
      '--user',
      'ada@example.com',
      '--siteverify-per-minute',
      '600',
    );
    expect(raised.code).toBe(0);
    expect(JSON.parse(raised.out[0])).toMatchObject({
      sitekey: site.sitekey,
      siteverify_per_minute: 600,
      origins: ['https://shop.example'],
    });
    const back = await cli(
      'site:update',
      site.sitekey,
      '--user',
      'ada@example.com',
      '--siteverify-per-minute',
      'default',
    );
    expect(JSON.parse(back.out[0]).siteverify_per_minute).toBeNull();
    const bad = await cli('site:update', site.sitekey, '--user', 'ada@example.com', '--siteverify-per-minute', 'lots');
    expect(bad.code).toBe(2);
    expect(bad.errors.join('\n')).toContain('--siteverify-per-minute');
    const busy = await cli(
      'site:create',
      '--user',
      'ada@example.com',
      '--name',
      'Busy',
      '--origin',
      'https://busy.example',
      '--siteverify-per-minute',
      '1200',
    );
    expect(JSON.parse(busy.out[0]).siteverify_per_minute).toBe(1200);
  }, 240_000);
});
