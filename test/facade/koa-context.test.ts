import { Writable } from 'node:stream';
import Koa from 'koa';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextFromKoa } from '../../facade/koa-context.ts';
import { requestLog } from '../../facade/request-log.ts';
import { listen, type RunningServer } from '../../facade/server.ts';
import type { InnerContext } from '../../routers/context.ts';
import { openTestServices, type TestServices } from '../helpers/services.ts';
import { request } from '../helpers/http.ts';

/** Log lines the app writes, parsed. */
const lines: Array<Record<string, unknown>> = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString('utf8').split('\n'))
      if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  },
});

let services: TestServices;
let server: RunningServer;
let base: string;
const contexts: InnerContext[] = [];

beforeAll(async () => {
  services = await openTestServices();
  const app = new Koa();
  app.use(requestLog(pino({ level: 'info' }, sink)));
  app.use((ctx) => {
    const inner = contextFromKoa(services, ctx);
    contexts.push(inner);
    // As a procedure's middleware passes a context on (procedure-call.ts): spread, plus a field.
    const passedOn = { ...inner, extra: true } as InnerContext;
    passedOn.log.info({ probe: ctx.path }, 'from a procedure');
    ctx.body = { ok: true };
  });
  server = await listen(app, { port: 0, host: '127.0.0.1', requestTimeoutMs: 10_000 });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await server?.close(1000);
  await services?.cleanup();
});

describe('the inner context a Koa request gets', () => {
  it("logs through the request's child logger, also once spread into a new context", async () => {
    const res = await request(`${base}/first`, { headers: { 'X-Request-Id': 'ctx-log-1' } });
    expect(res.status).toBe(200);
    const line = lines.find((l) => l.probe === '/first');
    expect(line).toMatchObject({ requestId: 'ctx-log-1', msg: 'from a procedure' });
  });

  it("gives each request's context its own request's logger and its own EntityManager", async () => {
    await request(`${base}/second`, { headers: { 'X-Request-Id': 'ctx-log-2' } });
    await request(`${base}/third`, { headers: { 'X-Request-Id': 'ctx-log-3' } });
    expect(lines.find((l) => l.probe === '/second')).toMatchObject({ requestId: 'ctx-log-2' });
    expect(lines.find((l) => l.probe === '/third')).toMatchObject({ requestId: 'ctx-log-3' });
    const [a, b] = contexts.slice(-2);
    expect(a.em).not.toBe(b.em);
    expect(a.em).not.toBe(services.orm.em);
  });
});
