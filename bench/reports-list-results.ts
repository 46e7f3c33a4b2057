/**
 * What carrying `results` in list items costs, measured against baselines in the same run so
 * the ratios hold on a loaded machine. On the database seeded by bench/reports-list.ts (1M
 * reports with real stored results of 6-7 KB each), interleaved request by request:
 *
 *   floor    GET /api/v1/account                      (auth, routing, JSON; no list)
 *   rest     GET /api/v1/reports?per_page=100         (results passed through as stored text)
 *   trpc     GET /trpc/reports.list {per_page: 100}   (the same page, results parsed and
 *                                                      serialised again: the cost avoided)
 *
 *   npx tsx bench/reports-list-results.ts [--samples N]
 *
 * BENCH_DATABASE_URL is the admin URL, BENCH_REPORTS_DATABASE the seeded database (default
 * bench_reports); run bench/reports-list.ts once first to seed it.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config.ts';
import { openServices } from '../src/services.ts';
import { findUser } from '../src/accounts/users.ts';
import { createApiKey } from '../src/accounts/api-keys.ts';
import { createApp } from '../facade/app.ts';
import { listen } from '../facade/server.ts';

const round = (n: number) => Math.round(n * 100) / 100;
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export async function main(): Promise<Record<string, { p50: number; p95: number; bytes: number }>> {
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--samples');
  const samples = at >= 0 ? Number(argv[at + 1]) : 60;
  const adminUrl = process.env.BENCH_DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
  const url = new URL(adminUrl);
  url.pathname = `/${process.env.BENCH_REPORTS_DATABASE || 'bench_reports'}`;
  const config = loadConfig({
    DATABASE_URL: url.toString(),
    TOKEN_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'silent',
    API_RATE_LIMIT: '100000000',
  });
  const services = await openServices(config, pino({ level: 'silent' }), { dataDir: null });
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 1 });
  const server = await listen(createApp(services), {
    port: 0,
    host: '127.0.0.1',
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
  });
  try {
    const em = services.orm.em.fork();
    const owner = await findUser(em, 'bench-owner@bench.test');
    if (!owner) throw new Error('not seeded: run bench/reports-list.ts first');
    const key = (await createApiKey(em, owner, `bench results ${new Date().toISOString()}`)).key;
    const origin = `http://127.0.0.1:${server.port}`;
    const paths = {
      floor: '/api/v1/account',
      rest: '/api/v1/reports?per_page=100',
      trpc: `/trpc/reports.list?input=${encodeURIComponent(JSON.stringify({ per_page: 100 }))}`,
    };
    const get = async (path: string) => {
      const started = performance.now();
      const res = await request(`${origin}${path}`, { dispatcher: agent, headers: { authorization: `Bearer ${key}` } });
      const text = await res.body.text();
      JSON.parse(text); // a client reads what it gets
      if (res.statusCode !== 200) throw new Error(`${path}: HTTP ${res.statusCode}`);
      return { ms: performance.now() - started, bytes: text.length };
    };
    const times: Record<string, number[]> = { floor: [], rest: [], trpc: [] };
    const bytes: Record<string, number> = {};
    for (let i = 0; i < 20; i++) for (const p of Object.values(paths)) await get(p);
    for (let i = 0; i < samples; i++) {
      for (const [name, p] of Object.entries(paths)) {
        const r = await get(p);
        times[name].push(r.ms);
        bytes[name] = r.bytes;
      }
    }
    const out: Record<string, { p50: number; p95: number; bytes: number }> = {};
    for (const name of Object.keys(paths))
      out[name] = {
        p50: round(percentile(times[name], 50)),
        p95: round(percentile(times[name], 95)),
        bytes: bytes[name],
      };
    console.log(`${samples} interleaved samples each, keep-alive, load average ${loadavg()[0].toFixed(2)}`);
    for (const [name, r] of Object.entries(out)) {
      console.log(
        `${name.padEnd(6)} p50 ${r.p50.toFixed(2).padStart(8)} ms  p95 ${r.p95.toFixed(2).padStart(8)} ms  ${(r.bytes / 1024).toFixed(0).padStart(5)} KB`,
      );
    }
    console.log(
      `rest/floor p50 ${round(out.rest.p50 / out.floor.p50)}x; trpc (parse and re-serialise) / rest p50 ${round(out.trpc.p50 / out.rest.p50)}x`,
    );
    return out;
  } finally {
    await agent.close();
    await server.close(1000);
    await services.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
