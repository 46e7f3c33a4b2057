import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { AnyRouter } from '@trpc/server';
import { notFound } from '../src/errors.ts';
import { stringifyWithRaw } from '../src/raw-json.ts';
import type { Services } from '../routers/context.ts';
import { bodyParser } from './body.ts';
import { apiKeyGate } from './api-key-gate.ts';
import { contextFromKoa } from './koa-context.ts';
import { rateLimit } from './rate-limit.ts';
import { buildRouteTable, methodHasBody, type RouteEntry } from './route-table.ts';
import { browserCors, preflight } from './browser-cors.ts';
import { siteverifyShape } from './siteverify-shape.ts';

type ProcedureCall = (opts: {
  path: string;
  ctx: unknown;
  type: 'query' | 'mutation';
  getRawInput: () => Promise<unknown>;
  signal: AbortSignal | undefined;
  batchIndex: number;
}) => Promise<unknown>;

/**
 * Calls a procedure the way tRPC's own caller does (createCaller builds a proxy per
 * request and then makes exactly this call); resolving the procedure once per route keeps
 * the proxy off the hot path. Middlewares, input and output parsing all still run.
 */
function invoker(router: AnyRouter, route: RouteEntry) {
  const procedure = (router._def.procedures as Record<string, unknown>)[route.procedurePath] as ProcedureCall;
  return (ctx: unknown, input: unknown) =>
    procedure({ path: route.procedurePath, ctx, type: route.type, getRawInput: async () => input, signal: undefined, batchIndex: 0 });
}

/** Path params win over body fields, body over query, so a URL cannot be overridden. */
function assembleInput(ctx: Context, route: RouteEntry): unknown {
  if (route.voidInput) return undefined;
  const body = methodHasBody(route.method) && ctx.request.body && typeof ctx.request.body === 'object' ? ctx.request.body : {};
  // A path naming something with a NUL in it names nothing (PostgreSQL cannot even look it up).
  if (Object.values(ctx.params ?? {}).some((v) => String(v).includes('\u0000'))) throw notFound();
  return Array.isArray(body) ? body : { ...ctx.query, ...(body as object), ...ctx.params };
}

/**
 * Mounts every REST route of the router. Per route: authentication for its auth kind,
 * its rate limit, body parsing (JSON or form, where the method has a body), then the
 * procedure through an in-process caller. The status of success comes from meta.
 */
export function restRouter(services: Services, router: AnyRouter): Router {
  const koaRouter = new Router();
  const gate = apiKeyGate(services);
  const parseBody = bodyParser(services.config.BODY_LIMIT_BYTES);

  const table = buildRouteTable(router);
  for (const route of table) {
    const chain: Middleware[] = [];
    if (route.meta.errorShape === 'siteverify') chain.push(siteverifyShape(services.metrics));
    if (route.meta.auth === 'origin') chain.push(browserCors());
    if (route.meta.auth === 'apiKey') chain.push(gate);
    if (route.meta.rateLimit) {
      chain.push(
        rateLimit(services.stores, {
          name: `${route.method}:${route.path}`,
          max: route.meta.rateLimit.max,
          windowMs: route.meta.rateLimit.windowMs,
          id: (ctx) => `ip:${ctx.ip}`,
          onStoreError: 'closed',
          log: services.log,
          metrics: services.metrics,
        }),
      );
    }
    if (methodHasBody(route.method)) chain.push(parseBody);
    const call = invoker(router, route);
    chain.push(async (ctx) => {
      const result = await call(contextFromKoa(services, ctx), assembleInput(ctx, route));
      ctx.status = route.meta.successStatus ?? 200;
      if (route.meta.responseType) {
        ctx.type = route.meta.responseType;
        ctx.set('Cache-Control', 'no-store');
      }
      if (result && typeof result === 'object' && !Buffer.isBuffer(result)) {
        // Same JSON as Koa would send; stored JSON (RawJson) goes through as it is.
        ctx.type = 'application/json';
        ctx.body = stringifyWithRaw(result);
      } else {
        ctx.body = result ?? { ok: true };
      }
    });
    koaRouter.register(route.routerPath, [route.method], chain);
  }
  // Preflights for the browser routes, one per path with all of its methods.
  const browserPaths = new Map<string, string[]>();
  for (const route of table) {
    if (route.meta.auth !== 'origin') continue;
    browserPaths.set(route.routerPath, [...(browserPaths.get(route.routerPath) ?? []), route.method]);
  }
  for (const [path, methods] of browserPaths) koaRouter.register(path, ['OPTIONS'], [preflight(methods)]);
  return koaRouter;
}
