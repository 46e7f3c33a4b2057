import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { goodPage, startFixtureSite, type FixtureSite } from '../helpers/fixture-site.ts';

const root = path.resolve(import.meta.dirname, '../..');
const SLOW_MS = 2000;

interface Outcome {
  sentAt: number;
  doneAt: number;
  status?: number;
  error?: string;
}

/** Whether a TCP connection to the port is refused (resolves true) or accepted (false). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setTimeout(2000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

describe('SIGTERM under load', () => {
  let dataDir: string;
  let fixture: FixtureSite;
  let child: ChildProcess | undefined;
  let out = '';
  let slowHits = 0;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'sigterm-'));
    fixture = await startFixtureSite();
    // A page that answers after SLOW_MS: report creates on it are slow requests in flight.
    fixture.routes.set('/slow', (_req, res) => {
      slowHits++;
      setTimeout(() => {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        res.end(goodPage('Slow page'));
      }, SLOW_MS);
    });
  });

  afterAll(async () => {
    child?.kill('SIGKILL');
    await fixture?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finishes accepted requests with 2xx, refuses new connections, and exits 0', async () => {
    child = spawn(process.execPath, ['--import', 'tsx', 'bin/server.ts'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        API_RATE_LIMIT: '1000000',
        ANALYZER_ALLOW_PRIVATE: 'true',
        // The one key's share must hold all four slow requests at once.
        ANALYZER_KEY_CONCURRENCY: '4',
        // Long enough that the slow requests drain on a loaded machine; the test waits on events.
        SHUTDOWN_TIMEOUT_MS: '30000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const proc = child;
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    proc.stdout!.on('data', (d) => (out = (out + d).slice(-65_536)));
    proc.stderr!.on('data', (d) => (out = (out + d).slice(-65_536)));
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start within 60 s:\n${out}`)), 60_000);
      const check = () => {
        const m = /Listening on http:\/\/localhost:(\d+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      };
      proc.stdout!.on('data', check);
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`exited with ${code}:\n${out}`));
      });
    });
    const key = /API key \(shown once, keep it\): (ak_\S+)/.exec(out)?.[1];
    expect(key).toBeDefined();
    const base = `http://127.0.0.1:${port}`;
    const auth = { Authorization: `Bearer ${key}` };

    let sigtermAt = Infinity;
    const send = async (url: string, init: RequestInit = {}): Promise<Outcome> => {
      const sentAt = performance.now();
      try {
        const res = await fetch(url, { ...init, signal: AbortSignal.timeout(45_000) });
        await res.arrayBuffer();
        return { sentAt, doneAt: performance.now(), status: res.status };
      } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause?.code;
        return { sentAt, doneAt: performance.now(), error: cause ?? (err as Error).name };
      }
    };

    // Steady load: 16 keep-alive loops reading the account, until a connection fails after
    // SIGTERM (bounded: 3000 requests or 30 s per loop).
    const fast: Outcome[] = [];
    const loopsUntil = performance.now() + 30_000;
    const loop = async () => {
      for (let i = 0; i < 3000 && performance.now() < loopsUntil; i++) {
        const o = await send(`${base}/api/v1/account`, { headers: auth });
        fast.push(o);
        if (o.error && o.sentAt >= sigtermAt) return;
        if (o.error) await new Promise((r) => setTimeout(r, 10));
      }
    };
    const loops = Promise.all(Array.from({ length: 16 }, loop));
    await new Promise((r) => setTimeout(r, 1000));

    // Slow requests: four report creates whose page answers after SLOW_MS.
    const slow = Array.from({ length: 4 }, () =>
      send(`${base}/api/v1/reports`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ url: `${fixture.url}/slow`, privacy: '0' }).toString(),
      }),
    );
    let slowFinished = 0;
    for (const p of slow) void p.then(() => slowFinished++);
    for (let i = 0; i < 500 && slowHits < 4; i++) await new Promise((r) => setTimeout(r, 20));
    expect(slowHits).toBe(4); // the service is working on all four

    sigtermAt = performance.now();
    proc.kill('SIGTERM');
    // While the slow requests still drain, the listening socket closes (the signal is handled
    // once the busy event loop gets to it: poll for at most 1.5 s, well within SLOW_MS).
    let refusedWhileDraining = false;
    while (!refusedWhileDraining && performance.now() - sigtermAt < 1500) {
      await new Promise((r) => setTimeout(r, 50));
      refusedWhileDraining = await refused(port);
    }
    const refusedAfterMs = performance.now() - sigtermAt;
    const slowDoneEarly = slowFinished > 0;

    const slowResults = await Promise.all(slow);
    await loops;
    const code = await Promise.race([
      exited,
      new Promise<string>((r) => setTimeout(() => r('no exit within 40 s'), 40_000)),
    ]);

    expect(refusedWhileDraining).toBe(true);
    expect(slowDoneEarly).toBe(false);
    expect(slowResults.map((o) => o.status)).toEqual([201, 201, 201, 201]);
    expect(code, out).toBe(0);

    // No answer from the draining process is a failure; every answer is 2xx.
    const answered = fast.filter((o) => o.status !== undefined);
    expect(answered.filter((o) => o.status !== 200)).toEqual([]);
    // Up to SIGTERM no request failed on its connection. (What the server had accepted is
    // known for the slow requests above: all 201. A GET written on a kept-alive socket just as
    // the process handles SIGTERM is reset, not answered: the client sees ECONNRESET, never a
    // status. Client-side send times cannot tell those apart from accepted ones on a loaded
    // machine, so they are counted and reported, not failed.)
    expect(fast.filter((o) => o.error && o.doneAt < sigtermAt)).toEqual([]);
    // After SIGTERM, new requests fail on the connection (refused or reset), never with a status.
    const after = fast.filter((o) => o.sentAt > sigtermAt + refusedAfterMs);
    expect(after.every((o) => o.error !== undefined)).toBe(true);
    expect(answered.length).toBeGreaterThan(16);
    const errors: Record<string, number> = {};
    for (const o of fast) {
      if (!o.error) continue;
      const k = `${o.error} (sent ${o.sentAt < sigtermAt ? 'before' : 'after'} SIGTERM)`;
      errors[k] = (errors[k] ?? 0) + 1;
    }
    console.log(
      `sigterm: ${answered.length} answered (all 200), connection errors`,
      errors,
      `slow: ${slowResults.map((o) => o.status).join(',')}; refused ${refusedAfterMs.toFixed(0)} ms after SIGTERM`,
    );
  }, 90_000);
});
