// Baseline for benchmarks: a bare Koa app that parses a JSON body and answers JSON.
// BARE_WORK_US=n adds n µs of busy CPU to each request (bench/lib/work-budget.ts): what a
// service that does only that much more than bare Koa reaches, measured in the same run.
import Koa from 'koa';
import { koaBody } from 'koa-body';

const workMs = Number(process.env.BARE_WORK_US ?? 0) / 1000;

const app = new Koa();
app.use(koaBody({ json: true, urlencoded: true }));
app.use((ctx) => {
  if (workMs > 0) {
    const until = performance.now() + workMs;
    while (performance.now() < until);
  }
  ctx.body = { success: true, received: Object.keys((ctx.request.body as object) ?? {}).length };
});
const server = app.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: (server.address() as { port: number }).port }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
