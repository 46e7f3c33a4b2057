import { Pool } from 'undici';
import { percentile } from '../lib/load.ts';

/** One request of the workload. `ok` decides success from the answer; `then` sees it. */
export interface Op {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  ok?: (status: number, text: string) => boolean;
  then?: (status: number, text: string) => void;
}

export interface OpenLoopOptions {
  /** One pool per service process; request i goes to pools[i % pools.length]. */
  pools: Pool[];
  /** Arrivals per second, whatever the answers do (open loop). */
  rate: number;
  durationMs: number;
  /** Arrivals beyond this many outstanding requests are dropped and count as errors. */
  maxInFlight: number;
  /** Deadline of one request (headers and body). */
  timeoutMs: number;
  build: (i: number) => Op;
}

export interface StepResult {
  rate: number;
  sent: number;
  ok: number;
  errors: number;
  dropped: number;
  /** Successful answers per second over the step, drain included. */
  achieved: number;
  /** Latency from the request's scheduled arrival (so queueing counts), ms. */
  p50: number;
  p99: number;
  byOp: Record<string, { n: number; errors: number; p50: number; p99: number }>;
  /** A few distinct error descriptions, for the log. */
  samples: string[];
}

export function openPools(urls: string[], connections: number, timeoutMs: number): Pool[] {
  return urls.map(
    (u) =>
      new Pool(u, {
        connections,
        pipelining: 1,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        keepAliveTimeout: 4000,
      }),
  );
}

/**
 * An open-loop load generator: request i is due at start + i/rate and is sent then, however
 * slow the answers are, so a saturated service shows as growing latency and errors, not as a
 * politely slower client. Bounded: rate x duration requests, at most maxInFlight outstanding,
 * each with a deadline.
 */
export async function runOpenLoop(opts: OpenLoopOptions): Promise<StepResult> {
  const total = Math.max(1, Math.floor((opts.rate * opts.durationMs) / 1000));
  const latencies: number[] = [];
  const perOp = new Map<string, { lat: number[]; errors: number }>();
  const samples = new Set<string>();
  let inFlight = 0;
  let ok = 0;
  let errors = 0;
  let dropped = 0;
  const pending = new Set<Promise<void>>();
  const start = performance.now();

  const record = (name: string, latency: number, good: boolean, why?: string) => {
    const s = perOp.get(name) ?? { lat: [], errors: 0 };
    perOp.set(name, s);
    latencies.push(latency);
    s.lat.push(latency);
    if (good) ok++;
    else {
      errors++;
      s.errors++;
      if (why && samples.size < 5) samples.add(`${name}: ${why}`);
    }
  };

  const launch = (i: number, due: number) => {
    const op = opts.build(i);
    if (inFlight >= opts.maxInFlight) {
      dropped++;
      record(op.name, performance.now() - due, false, 'dropped (too many outstanding)');
      return;
    }
    inFlight++;
    const pool = opts.pools[i % opts.pools.length];
    const p = (async () => {
      try {
        const res = await pool.request({ method: op.method, path: op.path, headers: op.headers, body: op.body });
        const text = op.name === 'asset' ? (await res.body.arrayBuffer(), '') : await res.body.text();
        const good = op.ok ? op.ok(res.statusCode, text) : res.statusCode < 400;
        if (good) op.then?.(res.statusCode, text);
        record(op.name, performance.now() - due, good, good ? undefined : `${res.statusCode} ${text.slice(0, 120)}`);
      } catch (err) {
        record(op.name, performance.now() - due, false, (err as Error).message);
      } finally {
        inFlight--;
      }
    })();
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };

  let i = 0;
  while (i < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) * opts.rate) / 1000) + 1);
    for (; i < due; i++) launch(i, start + (i * 1000) / opts.rate);
    await new Promise((r) => setTimeout(r, 2));
  }
  await Promise.all(pending);
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const byOp: StepResult['byOp'] = {};
  for (const [name, s] of perOp) {
    s.lat.sort((a, b) => a - b);
    byOp[name] = { n: s.lat.length, errors: s.errors, p50: percentile(s.lat, 50), p99: percentile(s.lat, 99) };
  }
  return {
    rate: opts.rate,
    sent: total - dropped,
    ok,
    errors,
    dropped,
    achieved: ok / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    byOp,
    samples: [...samples],
  };
}
