// The service compiled at a git commit, in a worktree of its own beside the working tree, for
// the bench that compares code (bench/compare.ts).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildServers } from './child.ts';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface BuiltCommit {
  /** The worktree, with dist/ built (service and bench servers). */
  dir: string;
  remove(): void;
}

/** Checks `commit` out in a temporary worktree sharing node_modules, and builds it and the working tree. */
export function buildCommitAndTree(commit: string): BuiltCommit {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'compare-'));
  const remove = () => {
    spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: root });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const added = spawnSync('git', ['worktree', 'add', '--detach', dir, commit], { cwd: root, stdio: 'inherit' });
    if (added.status !== 0) throw new Error(`git worktree add ${commit} failed`);
    symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    // A commit from before the compiled bench servers gets today's way to build them.
    if (!existsSync(path.join(dir, 'tsconfig.bench.json')))
      copyFileSync(path.join(root, 'tsconfig.bench.json'), path.join(dir, 'tsconfig.bench.json'));
    buildServers(dir);
    buildServers(root);
  } catch (err) {
    remove();
    throw err;
  }
  return { dir, remove };
}
