import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gcSince, type ChildServer, type GcTotals } from './child.ts';

/** One HTTP request as wrk sends it. */
export interface WrkRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface WrkOptions {
  /** http://host:port */
  url: string;
  connections: number;
  /** wrk threads (default: 2, or `connections` when fewer). */
  threads?: number;
  durationSec: number;
  /**
   * Requests to send, cycled through in order (split between threads). Give enough for the
   * run when each must be fresh (one-time tokens); a single entry repeats it.
   */
  requests: WrkRequest[];
}

export interface WrkResult {
  requests: number;
  seconds: number;
  rps: number;
  /** Latency percentiles in milliseconds, as wrk measured them. */
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
  /** Socket errors and timeouts. */
  socketErrors: number;
  /** Responses with status >= 400. */
  non2xx: number;
}

/** Whether Debian's `wrk` is installed (apt-get install wrk). */
export async function hasWrk(): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('wrk', ['--version'], { stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('exit', () => resolve(true));
  });
}

// Reads length-prefixed raw requests, keeps this thread's share, cycles through them, and
// prints one JSON line of figures at the end.
const script = `
local counter = 0
function setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
end
local reqs, n, idx = {}, 0, 0
function init(args)
  local f = assert(io.open(args[1], "rb"))
  local data = f:read("*a")
  f:close()
  local nt = tonumber(args[2])
  local all, pos = {}, 1
  while pos <= #data do
    local nl = data:find("\\n", pos, true)
    local len = tonumber(data:sub(pos, nl - 1))
    all[#all + 1] = data:sub(nl + 1, nl + len)
    pos = nl + 1 + len
  end
  -- This thread's share; every request when there are fewer than threads.
  for k = 1, #all do
    if #all < nt or (k - 1) % nt == tid then n = n + 1; reqs[n] = all[k] end
  end
end
function request()
  idx = idx % n + 1
  return reqs[idx]
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK_JSON {"requests":%d,"duration_us":%d,"socket_errors":%d,"non2xx":%d,"p50":%d,"p90":%d,"p95":%d,"p99":%d,"max":%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(90), latency:percentile(95), latency:percentile(99), latency.max))
end
`;

function raw(host: string, r: WrkRequest): Buffer {
  const body = r.body === undefined ? undefined : Buffer.from(r.body);
  const lines = [`${r.method} ${r.path} HTTP/1.1`, `Host: ${host}`];
  for (const [k, v] of Object.entries(r.headers ?? {})) lines.push(`${k}: ${v}`);
  if (body) lines.push(`Content-Length: ${body.length}`);
  return Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n'), body ?? Buffer.alloc(0)]);
}

/**
 * Runs Debian's wrk (an external, multi-threaded C load generator, so the load does not
 * compete with a Node event loop for the server's cores) with keep-alive connections.
 */
export async function runWrk(opts: WrkOptions): Promise<WrkResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wrk-'));
  try {
    const host = new URL(opts.url).host;
    const parts: Buffer[] = [];
    for (const r of opts.requests) {
      const bytes = raw(host, r);
      parts.push(Buffer.from(`${bytes.length}\n`), bytes);
    }
    const data = path.join(dir, 'requests.bin');
    writeFileSync(data, Buffer.concat(parts));
    const lua = path.join(dir, 'script.lua');
    writeFileSync(lua, script);
    const threads = Math.max(1, Math.min(opts.threads ?? 2, opts.connections));
    const args = [
      '-t',
      String(threads),
      '-c',
      String(opts.connections),
      '-d',
      `${opts.durationSec}s`,
      '--timeout',
      '10s',
      '-s',
      lua,
      opts.url,
      '--',
      data,
      String(threads),
    ];
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (d) => (text += d));
      child.stderr.on('data', (d) => (text += d));
      child.once('error', reject);
      child.once('exit', (code) =>
        code === 0 ? resolve(text) : reject(new Error(`wrk exited with ${code}: ${text}`)),
      );
    });
    const line = out.split('\n').find((l) => l.startsWith('WRK_JSON '));
    if (!line) throw new Error(`wrk printed no figures: ${out}`);
    const j = JSON.parse(line.slice('WRK_JSON '.length)) as Record<string, number>;
    const seconds = j.duration_us / 1e6;
    return {
      requests: j.requests,
      seconds,
      rps: j.requests / seconds,
      p50: j.p50 / 1000,
      p90: j.p90 / 1000,
      p95: j.p95 / 1000,
      p99: j.p99 / 1000,
      max: j.max / 1000,
      socketErrors: j.socket_errors,
      non2xx: j.non2xx,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The 1-, 5- and 15-minute load averages, for printing beside figures on a shared machine. */
export function loadAverage(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

/** CPU seconds a process has used so far in user and in kernel mode, from /proc (Linux). */
export function cpuTimes(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command name.
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

/** A server's garbage collection per request during a run (from a child started with `traceGc`). */
export interface GcPerRequest {
  pauseUs: number;
  /** The run's longest single pause, in ms. */
  maxPauseMs: number;
  allocatedBytes: number;
  promotedBytes: number;
}

/**
 * Runs wrk against a server process and adds the server's CPU time per request (in µs), and
 * the part of it spent in the kernel (mostly loopback TCP, which a faster server cannot
 * shed): on a loaded, shared machine these are steadier than requests per second. Given the
 * child's GC totals (`gc`), adds its collection pauses, allocation and promotion per request.
 */
export async function runWrkMeasured(
  pid: number,
  opts: WrkOptions,
  gc?: () => GcTotals,
): Promise<WrkResult & { cpuUsPerRequest: number; kernelUsPerRequest: number; gc?: GcPerRequest }> {
  const before = cpuTimes(pid);
  const gcBefore = gc?.();
  const r = await runWrk(opts);
  const after = cpuTimes(pid);
  const per = (amount: number) => amount / Math.max(1, r.requests);
  const collected = gc && gcBefore ? gcSince(gcBefore, gc()) : undefined;
  return {
    ...r,
    cpuUsPerRequest: per((after.user - before.user + after.system - before.system) * 1e6),
    kernelUsPerRequest: per((after.system - before.system) * 1e6),
    ...(collected
      ? {
          gc: {
            pauseUs: per(collected.pauseMs * 1000),
            maxPauseMs: collected.maxPauseMs,
            allocatedBytes: per(collected.allocatedBytes),
            promotedBytes: per(collected.promotedBytes),
          },
        }
      : {}),
  };
}

/**
 * Waits out the work a server started with `traceGc` does after a round of load: V8's memory
 * reducer runs a full collection about 8 s after allocation stops (300-400 ms of CPU on the
 * service with its stores filled). Left to land in the next target's round, it takes CPU from
 * that target's server and wrk on a two-core machine, and that target's CPU a request reads up
 * to 20 % higher. Returns once that collection has happened (or `deadlineMs`
 * passed) and the process has used at most 2 % of a core for 500 ms.
 */
export async function settle(server: Pick<ChildServer<unknown>, 'child' | 'gc'>, deadlineMs = 10_000): Promise<void> {
  const pid = server.child.pid!;
  const reductions = server.gc().reductions;
  const until = performance.now() + deadlineMs;
  while (performance.now() < until && server.gc().reductions === reductions) await sleep(250);
  while (performance.now() < until) {
    const before = cpuTimes(pid);
    await sleep(500);
    const after = cpuTimes(pid);
    // /proc counts in 10 ms ticks: at most one in 500 ms.
    if ((after.user + after.system - before.user - before.system) * 1000 <= 10) return;
  }
}
