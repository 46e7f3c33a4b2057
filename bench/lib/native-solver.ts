import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The attacker's native solver (bench/adversary/native-solver.c: 16-lane AVX-512 SHA-256
 * where the CPU has it, else OpenSSL's, which uses the CPU's SHA extensions; on every core),
 * built with Debian's gcc for this machine.
 */
export interface NativeSolver {
  /** The engine it runs on this CPU: 16-lane AVX-512, or OpenSSL's SHA-256 (SHA extensions). */
  engine: string;
  /** Hashes per second on `threads` cores, measured over `seconds`. */
  rate(seconds: number, threads: number): number;
  /** Solve a puzzle as the widget does; the nonces (comma-separated) and the hashes it took. */
  solve(
    view: { id: string; count: number; bits: number },
    threads: number,
  ): { solutions: string; hashes: number; seconds: number };
}

const source = fileURLToPath(new URL('../adversary/native-solver.c', import.meta.url));

/** Compile the solver (gcc -O3 -march=native, libcrypto); throws when gcc or libssl-dev is missing. */
export function buildNativeSolver(): NativeSolver {
  const binary = path.join(mkdtempSync(path.join(os.tmpdir(), 'native-solver-')), 'native-solver');
  execFileSync('gcc', ['-O3', '-march=native', '-pthread', source, '-o', binary, '-lcrypto'], { stdio: 'pipe' });
  const avx512 = readFileSync('/proc/cpuinfo', 'utf8').includes(' avx512f');
  return {
    engine: avx512 ? 'AVX-512, 16 nonces per vector' : "OpenSSL's SHA-256, SHA extensions",
    rate(seconds, threads) {
      const out = execFileSync(binary, ['rate', String(seconds), String(threads)], { encoding: 'utf8' });
      return Number(/rate (\d+)/.exec(out)?.[1]);
    },
    solve(view, threads) {
      const run = spawnSync(binary, ['solve', view.id, String(view.count), String(view.bits), String(threads)], {
        encoding: 'utf8',
      });
      if (run.status !== 0) throw new Error(`native solver failed: ${run.stderr}`);
      const solutions = run.stdout.trim();
      const hashes = solutions.split(',').reduce((sum, n) => sum + Number(n) + 1, 0);
      return { solutions, hashes, seconds: Number(/seconds ([\d.]+)/.exec(run.stderr)?.[1]) };
    },
  };
}
