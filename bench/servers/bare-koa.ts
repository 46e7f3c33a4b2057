// Baseline for benchmarks: a bare Koa app that parses a JSON body and answers JSON.
import Koa from 'koa';
import { koaBody } from 'koa-body';

const app = new Koa();
app.use(koaBody({ json: true, urlencoded: true }));
app.use((ctx) => {
  ctx.body = { success: true, received: Object.keys((ctx.request.body as object) ?? {}).length };
});
const server = app.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: (server.address() as { port: number }).port }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
