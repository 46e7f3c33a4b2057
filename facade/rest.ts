import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { AnyRouter } from '@trpc/server';
import { AppError, notFound } from '../src/errors.ts';
import { encodeWithRaw } from '../src/raw-json.ts';
import type { Services } from '../routers/context.ts';
import { bodyParser } from './body.ts';
import { apiKeyGate } from './api-key-gate.ts';
import { contextFromKoa } from './koa-context.ts';
import { clientKey } from '../src/net/client-key.ts';
import { rateLimit } from './rate-limit.ts';
import { buildRouteTable, methodHasBody, type RouteEntry } from './route-table.ts';
import { browserCors, preflight } from './browser-cors.ts';
import { siteverifyShape } from './siteverify.ts';
import { procedureCaller } from './procedures.ts';

/**
 * Routes with a body take their fields from it, never from the query string: passwords and
 * siteverify secrets in a URL end up in proxy and access logs. A query string on such a
 * route is a 400 naming the fields (siteverify answers `bad-request`), before the body is read.
 */
const fieldsInBodyOnly: Middleware = (ctx, next) => {
  // The raw query string first: most requests have none, and parsing it builds objects.
  const names = ctx.querystring ? Object.keys(ctx.query) : [];
  if (names.length) {
    const shown = names.slice(0, 10).map((n) => n.slice(0, 64));
    throw new AppError(
      'ERR_BAD_REQUEST',
      `Send fields in the request body, not the query string (got ${shown.join(', ')}).`,
      {
        errors: Object.fromEntries(
          shown.map((n) => [n, ['Send this field in the request body, not the query string.']]),
        ),
      },
    );
  }
  return next();
};

/** Path params win over body fields, so a URL cannot be overridden; only GET and DELETE read the query. */
function assembleInput(ctx: Context, route: RouteEntry): unknown {
  if (route.voidInput) return undefined;
  const hasBody = methodHasBody(route.method);
  const body = hasBody && ctx.request.body && typeof ctx.request.body === 'object' ? ctx.request.body : {};
  // A path naming something with a NUL in it names nothing (PostgreSQL cannot even look it up).
  const params = (ctx.params as Record<string, unknown> | undefined) ?? {};
  if (Object.values(params).some((v) => String(v).includes('\u0000'))) throw notFound();
  return Array.isArray(body) ? body : { ...(hasBody ? {} : ctx.query), ...body, ...ctx.params };
}

/**
 * Mounts every REST route of the router. Per route: authentication for its auth kind,
 * its rate limit, body parsing (JSON or form, where the method has a body), then the
 * procedure through tRPC's in-process caller. The status of success comes from meta; a
 * siteverify route shapes its verdict for its path (siteverify.ts).
 */
export function restRoutes(services: Services, router: AnyRouter): Router {
  const routes = new Router();
  const gate = apiKeyGate(services);
  const parseBody = bodyParser(services.config.BODY_LIMIT_BYTES);

  const table = buildRouteTable(router);
  for (const route of table) {
    const call = procedureCaller(router, route.procedurePath);
    const chain: Middleware[] = [];
    if (route.protocol) chain.push(siteverifyShape(route.protocol, services.metrics));
    if (route.meta.auth === 'origin') chain.push(browserCors());
    if (route.meta.auth === 'apiKey') chain.push(gate);
    if (route.meta.rateLimit) {
      chain.push(
        rateLimit(services.stores, {
          name: `${route.method}:${route.path}`,
          max: route.meta.rateLimit.max,
          windowMs: route.meta.rateLimit.windowMs,
          id: (ctx) => `ip:${clientKey(ctx.ip)}`,
          onStoreError: 'closed',
          log: services.log,
          metrics: services.metrics,
        }),
      );
    }
    if (methodHasBody(route.method)) chain.push(fieldsInBodyOnly, parseBody);
    const send = (ctx: Context, result: unknown) => {
      ctx.status = route.meta.successStatus ?? 200;
      if (route.meta.responseType) {
        ctx.type = route.meta.responseType;
        ctx.set('Cache-Control', 'no-store');
      }
      if (route.protocol) {
        // A verdict, left an object for siteverifyShape to shape and count; Koa sends it as JSON.
        ctx.body = result;
      } else if (result && typeof result === 'object' && !Buffer.isBuffer(result)) {
        // Same JSON as Koa would send; stored JSON (RawJson) goes through as it is.
        ctx.type = 'json';
        ctx.body = encodeWithRaw(result);
      } else {
        ctx.body = result ?? { ok: true };
      }
    };
    chain.push((ctx) =>
      call(contextFromKoa(services, ctx), assembleInput(ctx, route)).then((result) => send(ctx, result)),
    );
    routes.register(route.routerPath, [route.method], chain);
  }
  // Preflights for the browser routes, one per path with all of its methods.
  const browserPaths = new Map<string, string[]>();
  for (const route of table) {
    if (route.meta.auth !== 'origin') continue;
    browserPaths.set(route.routerPath, [...(browserPaths.get(route.routerPath) ?? []), route.method]);
  }
  for (const [path, methods] of browserPaths) routes.register(path, ['OPTIONS'], [preflight(methods)]);
  return routes;
}
