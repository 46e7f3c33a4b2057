import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ChildServer<T> {
  info: T;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts a TypeScript server script in its own process (so load generation and serving do
 * not share an event loop) and waits for the JSON line it prints once listening.
 */
export function startChild<T>(
  script: string,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<ChildServer<T>> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', path.join(root, script)], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
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
