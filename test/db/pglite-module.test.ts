import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { initORM, migrate } from '../../src/db/orm.ts';
import { EMBEDDED_SHARED_BUFFERS, embeddedWasmModule } from '../../src/db/pglite-module.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const setting = async (db: Awaited<ReturnType<typeof initORM>>, name: string) =>
  (await db.orm.em.getConnection().execute<Array<Record<string, string>>>(`show ${name}`))[0][name];

describe('the embedded database', () => {
  it('runs PostgreSQL with the smaller buffer pool, and nothing else changed', async () => {
    expect(await embeddedWasmModule()).toBeInstanceOf(WebAssembly.Module);
    const db = await initORM({});
    try {
      expect(await setting(db, 'shared_buffers')).toBe(EMBEDDED_SHARED_BUFFERS);
      // The other arguments PGlite starts PostgreSQL with are still its own.
      expect(await setting(db, 'work_mem')).toBe('4MB');
      expect(await setting(db, 'wal_buffers')).toBe('4MB');
      expect(await setting(db, 'temp_buffers')).toBe('8MB');
    } finally {
      await db.close();
    }
  });

  it('keeps its data across a restart on disk, migrated and queried through the patched module', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pglite-module-'));
    dirs.push(dir);
    const first = await initORM({ dataDir: dir });
    try {
      await migrate(first.orm);
      await first.orm.em
        .getConnection()
        .execute(`insert into users (email, name, created_at, updated_at) values ('a@b.test', 'A', now(), now())`);
    } finally {
      await first.close();
    }
    const second = await initORM({ dataDir: dir });
    try {
      expect(await migrate(second.orm)).toEqual([]);
      const rows = await second.orm.em.getConnection().execute(`select email from users`);
      expect(rows).toEqual([{ email: 'a@b.test' }]);
      expect(await setting(second, 'shared_buffers')).toBe(EMBEDDED_SHARED_BUFFERS);
    } finally {
      await second.close();
    }
  });
});
