import { Writable } from 'node:stream';
import Koa from 'koa';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextFromKoa } from '../../facade/koa-context.ts';
import { requestLog } from '../../facade/request-log.ts';
import { listen, type RunningServer } from '../../facade/server.ts';
import { procedureCaller } from '../../facade/procedures.ts';
import type { InnerContext } from '../../routers/context.ts';
import { apiKeyProcedure, router } from '../../routers/trpc.ts';
import { createKeyedUser, openTestServices, type TestServices } from '../helpers/services.ts';
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
let key: string;
let userId: number;
const contexts: InnerContext[] = [];
/** What an API-key procedure saw of its context: tRPC's middleware passed it on (a spread, plus fields). */
const passedOn: Array<{ em: unknown; userId: unknown }> = [];

/** A procedure behind the API-key middleware, which hands its resolver a new context. */
const probeRouter = router({
  probe: apiKeyProcedure.query(({ ctx }) => {
    ctx.log.info({ probe: 'api-key procedure' }, 'from a procedure');
    passedOn.push({ em: ctx.em, userId: ctx.user.id });
    return { ok: true };
  }),
});
const probe = procedureCaller(probeRouter, 'probe');

beforeAll(async () => {
  services = await openTestServices();
  const keyed = await createKeyedUser(services);
  key = keyed.key;
  userId = keyed.user.id;
  const app = new Koa();
  app.use(requestLog(pino({ level: 'info' }, sink)));
  app.use(async (ctx) => {
    const inner = contextFromKoa(services, ctx);
    contexts.push(inner);
    if (ctx.path === '/procedure') {
      ctx.body = await probe(inner, undefined);
      return;
    }
    inner.log.info({ probe: ctx.path }, 'from a procedure');
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
  it("logs through the request's child logger", async () => {
    const res = await request(`${base}/first`, { headers: { 'X-Request-Id': 'ctx-log-1' } });
    expect(res.status).toBe(200);
    const line = lines.find((l) => l.probe === '/first');
    expect(line).toMatchObject({ requestId: 'ctx-log-1', msg: 'from a procedure' });
  });

  it("keeps the request's logger and EntityManager when a procedure's middleware passes the context on", async () => {
    const res = await request(`${base}/procedure`, {
      headers: { 'X-Request-Id': 'ctx-log-passed', Authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    expect(lines.find((l) => l.probe === 'api-key procedure')).toMatchObject({
      requestId: 'ctx-log-passed',
      msg: 'from a procedure',
    });
    const seen = passedOn.at(-1)!;
    expect(seen.userId).toBe(userId);
    // The request's own fork, the one the API key was looked up with, not a new one.
    expect(seen.em).toBe(contexts.at(-1)!.em);
    expect(seen.em).not.toBe(services.orm.em);
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
