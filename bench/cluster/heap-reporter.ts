// Heap sampling for benchmark children, loaded beside tsx without touching bin/server.ts:
//   node --expose-gc --import tsx --import ./bench/cluster/heap-reporter.ts bin/server.ts
// On SIGUSR2, and every HEAP_REPORT_MS milliseconds when that is set, it runs a full GC
// (when --expose-gc gave us global.gc) and prints one line to stdout:
//   HEAP {"t":<epoch ms>,"pid":…,"gc":true,"heapUsed":…,"heapTotal":…,"external":…,"rss":…}
// Nothing else changes in the process; without SIGUSR2 or HEAP_REPORT_MS it stays silent.

const gc = (globalThis as { gc?: () => void }).gc;

function report(): void {
  gc?.();
  const m = process.memoryUsage();
  const line = {
    t: Date.now(),
    pid: process.pid,
    gc: Boolean(gc),
    heapUsed: m.heapUsed,
    heapTotal: m.heapTotal,
    external: m.external,
    rss: m.rss,
  };
  process.stdout.write(`HEAP ${JSON.stringify(line)}\n`);
}

process.on('SIGUSR2', report);
const every = Number(process.env.HEAP_REPORT_MS ?? 0);
if (Number.isFinite(every) && every > 0) setInterval(report, Math.max(1000, every)).unref();

export {};
