import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { ConfigError, loadConfig, resolveTokenKey } from '../src/config.ts';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c.PORT).toBe(3000);
    expect(c.DATA_DIR).toBe('./data');
    expect(c.TRUST_PROXY).toBe(false);
    expect(c.LOG_LEVEL).toBe('info');
    expect(c.API_RATE_LIMIT).toBe(240);
    expect(c.embedded).toBe(true);
    expect(c.tokenKey).toBeUndefined();
  });

  it('treats empty values as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '' }).PORT).toBe(3000);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['REDIS_URL', 'http://localhost:6379'],
    ['TOKEN_KEY', 'short'],
    ['TRUST_PROXY', 'maybe'],
    ['LOG_LEVEL', 'loud'],
    ['API_RATE_LIMIT', '0'],
  ])('rejects %s=%s with one line naming the variable', (name, value) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain(name);
    expect(message.split('\n')).toHaveLength(1);
  });

  it('never echoes a bad TOKEN_KEY', () => {
    expect(() => loadConfig({ TOKEN_KEY: 'not-a-secret-to-show' })).toThrow(/^Invalid TOKEN_KEY: /);
    try {
      loadConfig({ TOKEN_KEY: 'not-a-secret-to-show' });
    } catch (err) {
      expect((err as Error).message).not.toContain('not-a-secret-to-show');
    }
  });

  it('accepts hex and base64url token keys of 32 bytes', () => {
    expect(loadConfig({ TOKEN_KEY: 'ab'.repeat(32) }).tokenKey).toHaveLength(32);
    expect(loadConfig({ TOKEN_KEY: Buffer.alloc(32, 7).toString('base64url') }).tokenKey).toHaveLength(32);
  });

  it('parses PAT_ISSUERS: none by default, 2048-bit RSASSA-PSS token keys by issuer name', () => {
    expect(loadConfig({}).PAT_ISSUERS).toEqual([]);
    const pss = (modulusLength: number) =>
      generateKeyPairSync('rsa-pss', {
        modulusLength,
        hashAlgorithm: 'sha384',
        mgf1HashAlgorithm: 'sha384',
      })
        .publicKey.export({ type: 'spki', format: 'der' })
        .toString('base64url');
    const key = pss(2048);
    const [issuer, ...rest] = loadConfig({ PAT_ISSUERS: ` pat.example=${key} ,` }).PAT_ISSUERS;
    expect(rest).toEqual([]);
    expect(issuer.name).toBe('pat.example');
    expect(issuer.tokenKey.toString('base64url')).toBe(key);
    expect(issuer.tokenKeyId).toHaveLength(32);
    const rsaEncryption = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .publicKey.export({ type: 'spki', format: 'der' })
      .toString('base64url');
    for (const bad of [`a=${rsaEncryption}`, `a=${pss(1024)}`, key, `a=${key},a=${key}`, 'a=not base64', `-a=${key}`]) {
      expect(() => loadConfig({ PAT_ISSUERS: bad }), bad.slice(0, 12)).toThrow(/^Invalid PAT_ISSUERS/);
    }
  });

  it('parses PostgreSQL and Redis URLs and leaves embedded mode', () => {
    const c = loadConfig({ DATABASE_URL: 'postgresql://postgres@127.0.0.1/x', REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(c.embedded).toBe(false);
    expect(c.REDIS_URL).toBe('redis://127.0.0.1:6379');
  });
});

describe('resolveTokenKey', () => {
  it('generates a key once in DATA_DIR and reads the same one back', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cfg-'));
    const first = resolveTokenKey(loadConfig({ DATA_DIR: dir }));
    const second = resolveTokenKey(loadConfig({ DATA_DIR: dir }));
    expect(first).toHaveLength(32);
    expect(second.equals(first)).toBe(true);
    expect(readFileSync(path.join(dir, 'token.key'), 'utf8').trim()).toBe(first.toString('hex'));
  });

  it('prefers TOKEN_KEY when set', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cfg-'));
    const key = resolveTokenKey(loadConfig({ DATA_DIR: dir, TOKEN_KEY: 'cd'.repeat(32) }));
    expect(key.toString('hex')).toBe('cd'.repeat(32));
  });
});
