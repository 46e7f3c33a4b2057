import { Pool } from 'undici';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
}

export interface LoadOptions {
  url: string;
  connections: number;
  durationMs: number;
  /** Bounds the run whatever the duration. */
  maxRequests?: number;
  /** Builds request i; returns method, path, headers and body. */
  request: (i: number) => { method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: string };
  /** Whether a response counts as an error (default: status >= 500). */
  isError?: (status: number, body: string) => boolean;
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * A closed-loop load generator: `connections` workers, each sending its next request when
 * the previous answer is in, over a keep-alive undici pool, for a bounded time and count.
 */
export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const pool = new Pool(opts.url, { connections: opts.connections, pipelining: 1 });
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + opts.durationMs;
  const max = opts.maxRequests ?? Number.POSITIVE_INFINITY;
  const isError = opts.isError ?? ((status) => status >= 500);
  const worker = async () => {
    while (performance.now() < deadline && next < max) {
      const i = next++;
      const r = opts.request(i);
      const t0 = performance.now();
      try {
        const res = await pool.request({ method: r.method, path: r.path, headers: r.headers, body: r.body });
        const text = await res.body.text();
        if (isError(res.statusCode, text)) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: opts.connections }, worker));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    seconds,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

export function fmt(n: number, digits = 1): string {
  return Number.isFinite(n) ? n.toFixed(digits) : '-';
}
