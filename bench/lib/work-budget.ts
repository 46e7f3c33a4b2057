// What the ratio targets leave for a service's own work on this machine: bare Koa with a
// fixed busy wait added to each request (bench/servers/bare-koa.ts, BARE_WORK_US), measured
// beside the plain baseline in the same run. A service whose work per request exceeds the
// largest wait that still reaches a target cannot reach it, however its layers are arranged.
import { startChild } from './child.ts';
import { fmt } from './load.ts';
import { runWrkMeasured, type WrkRequest } from './wrk.ts';

export interface WorkBudgetOptions {
  baseline: { port: number; pid: number };
  request: WrkRequest;
  connections: number;
  durationSec: number;
  /** Busy microseconds added per request, one server each. */
  workUs: number[];
}

/** Prints, for each added wait, its requests per second, ratio to the baseline run just before it, CPU and p99. */
export async function printWorkBudget(opts: WorkBudgetOptions): Promise<void> {
  const load = (port: number) => ({
    url: `http://127.0.0.1:${port}`,
    connections: opts.connections,
    durationSec: opts.durationSec,
    requests: [opts.request],
  });
  console.log("bare Koa plus a fixed busy wait per request (what the ratio targets leave for a service's own work):");
  for (const us of opts.workUs) {
    const server = await startChild<{ port: number }>('bench/servers/bare-koa.ts', { BARE_WORK_US: String(us) });
    try {
      await runWrkMeasured(server.child.pid!, { ...load(server.info.port), durationSec: 1 });
      const bare = await runWrkMeasured(opts.baseline.pid, load(opts.baseline.port));
      const busy = await runWrkMeasured(server.child.pid!, load(server.info.port));
      console.log(
        `  + ${String(us).padStart(3)} µs: ${fmt(busy.rps, 0).padStart(6)} req/s, ratio ${fmt(busy.rps / bare.rps, 2)} of bare Koa (${fmt(bare.rps, 0)}), server CPU ${fmt(busy.cpuUsPerRequest, 0)} µs/req (bare ${fmt(bare.cpuUsPerRequest, 0)}), p99 ${fmt(busy.p99, 1)} ms`,
      );
    } finally {
      await server.stop();
    }
  }
}
