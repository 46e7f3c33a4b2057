import { mkdirSync } from 'node:fs';
import path from 'node:path';
import lockfile from 'proper-lockfile';

/**
 * The embedded database has one owner. PGlite is a whole PostgreSQL in this process with no
 * shared-memory coordination: a second process opening the same directory (the CLI while the
 * service runs, or a second service) corrupts it. Whoever opens `DATA_DIR/pglite` first holds
 * `DATA_DIR/pglite.lock` (a directory made atomically with mkdir, proper-lockfile's scheme)
 * until it closes the database; anyone else is refused before touching a file.
 *
 * The holder refreshes the lock's mtime every few seconds; a lock left by a process that
 * crashed goes stale after `EMBEDDED_LOCK_STALE_MS` and is then taken over.
 */

/** A lock whose mtime is older than this was left by a dead process. */
export const EMBEDDED_LOCK_STALE_MS = 30_000;
/** How often the holder refreshes the lock. */
const UPDATE_MS = 5_000;

/** Exit code of the CLI when the database is held by another process (EX_TEMPFAIL). */
export const EXIT_DATABASE_LOCKED = 75;

/** Thrown when another live process holds the embedded database. `message` is one line. */
export class DatabaseLockedError extends Error {
  override name = 'DatabaseLockedError';
  readonly code = 'DATABASE_LOCKED';
}

/** The lock's path for a data directory. */
export function embeddedLockPath(dataDir: string): string {
  return path.join(path.resolve(dataDir), 'pglite.lock');
}

function lockedMessage(dataDir: string): string {
  return (
    `The embedded database in ${path.resolve(dataDir)} is in use by another process (the running service?): ` +
    `stop it first, or use the HTTP API. A lock left by a crash frees itself within ${EMBEDDED_LOCK_STALE_MS / 1000} s.`
  );
}

function options(dataDir: string) {
  return { realpath: false, lockfilePath: embeddedLockPath(dataDir), stale: EMBEDDED_LOCK_STALE_MS };
}

export interface HeldLock {
  release(): Promise<void>;
}

/**
 * Takes the embedded database's lock, or throws DatabaseLockedError when a live process holds
 * it. `waitMs` keeps trying that long first (a service restarting right after a crash waits
 * for the dead process's lock to go stale). `onLost` is told when the lock was taken from us
 * (our refresh stalled past the stale time); the default logs nothing and keeps running.
 */
export async function lockEmbeddedDatabase(
  dataDir: string,
  opts: { waitMs?: number; onLost?: (err: Error) => void } = {},
): Promise<HeldLock> {
  mkdirSync(path.resolve(dataDir), { recursive: true });
  const waitMs = opts.waitMs ?? 0;
  try {
    const release = await lockfile.lock(path.resolve(dataDir, 'pglite'), {
      ...options(dataDir),
      update: UPDATE_MS,
      retries: waitMs > 0 ? { retries: Math.ceil(waitMs / 1000), minTimeout: 1000, maxTimeout: 1000, factor: 1 } : 0,
      onCompromised: opts.onLost ?? (() => {}),
    });
    let released = false;
    return {
      async release() {
        if (released) return;
        released = true;
        await release().catch(() => {});
      },
    };
  } catch (err) {
    if ((err as { code?: string }).code === 'ELOCKED') throw new DatabaseLockedError(lockedMessage(dataDir));
    throw err;
  }
}

/**
 * Throws DatabaseLockedError when a live process holds the embedded database of `dataDir`,
 * touching nothing (the CLI asks this before it even reads the token key).
 */
export async function assertEmbeddedDatabaseFree(dataDir: string): Promise<void> {
  const held = await lockfile.check(path.resolve(dataDir, 'pglite'), options(dataDir)).catch(() => false);
  if (held) throw new DatabaseLockedError(lockedMessage(dataDir));
}
