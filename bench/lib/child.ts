import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The V8 flags `npm start` gives the service (its `node --flag … dist/…` command in
 * package.json), so a benchmark's server runs with the production heap settings.
 */
export function productionNodeFlags(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  return pkg.scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
}

export interface ChildServer<T> {
  info: T;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts a TypeScript server script in its own process (so load generation and serving do
 * not share an event loop), with the production V8 flags (the bare baselines too, so both
 * sides of a ratio run alike), and waits for the JSON line it prints once listening.
 */
export function startChild<T>(
  script: string,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<ChildServer<T>> {
  const child = spawn(
    process.execPath,
    [...productionNodeFlags(), ...nodeArgs, '--import', 'tsx', path.join(root, script)],
    {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`${script} did not start in 60 s`)), 60_000);
    child.stdout.on('data', (d) => {
      buffer += d;
      const line = buffer.split('\n').find((l) => l.startsWith('{'));
      if (!line) return;
      clearTimeout(timer);
      resolve({
        info: JSON.parse(line) as T,
        child,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code}`));
    });
  });
}
