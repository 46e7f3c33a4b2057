import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The attacker's native solver (bench/adversary/native-solver.c: the walk of pow/walk.ts in C,
 * eight or sixteen attempts interleaved in scalar code, or 32 in AVX-512 vectors where the CPU
 * has it, whichever is fastest here; on every core), built with Debian's gcc for this machine.
 */
export interface NativeSolver {
  /** Attempts per second on `threads` cores, measured over `seconds`, and the engine that ran (the fastest here). */
  rate(seconds: number, threads: number): { rate: number; engine: string };
  /** Solve a puzzle as the widget does; the nonces (comma-separated) and the attempts it took. */
  solve(
    view: { id: string; count: number; bits: number },
    threads: number,
  ): { solutions: string; attempts: number; seconds: number };
}

const source = fileURLToPath(new URL('../adversary/native-solver.c', import.meta.url));

/** Compile the solver (gcc -O3 -march=native); throws when gcc is missing. */
export function buildNativeSolver(): NativeSolver {
  const binary = path.join(mkdtempSync(path.join(os.tmpdir(), 'native-solver-')), 'native-solver');
  execFileSync('gcc', ['-O3', '-march=native', '-pthread', source, '-o', binary], { stdio: 'pipe' });
  return {
    rate(seconds, threads) {
      const out = execFileSync(binary, ['rate', String(seconds), String(threads)], { encoding: 'utf8' });
      return { rate: Number(/rate (\d+)/.exec(out)?.[1]), engine: /engine (\w+)/.exec(out)?.[1] ?? '?' };
    },
    solve(view, threads) {
      const run = spawnSync(binary, ['solve', view.id, String(view.count), String(view.bits), String(threads)], {
        encoding: 'utf8',
      });
      if (run.status !== 0) throw new Error(`native solver failed: ${run.stderr}`);
      const solutions = run.stdout.trim();
      const attempts = solutions.split(',').reduce((sum, n) => sum + Number(n) + 1, 0);
      return { solutions, attempts, seconds: Number(/seconds ([\d.]+)/.exec(run.stderr)?.[1]) };
    },
  };
}
