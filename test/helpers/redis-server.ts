import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connectRedis } from '../../src/stores/redis-client.ts';
import { freePort } from './ports.ts';

/** Whether this machine has a redis-server binary to start private instances with. */
export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * A private Redis on a loopback port, for tests that stop and start it. Keeps nothing on
 * disk. `stop()` kills it; `start()` brings it back on the same port; `pause()` freezes it
 * with its connections open, `resume()` thaws it.
 */
export async function privateRedis() {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    for (let i = 0; i < 100; i++) {
      try {
        const probe = await connectRedis(`redis://127.0.0.1:${port}`, undefined, 500);
        await probe.quit();
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    throw new Error(`private redis-server on ${port} did not start`);
  };
  const stop = async () => {
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  };
  // Frozen, not gone: the process stops (SIGSTOP), its connections stay open and unanswered.
  const pause = () => child?.kill('SIGSTOP');
  const resume = () => child?.kill('SIGCONT');
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, start, stop, pause, resume };
}
