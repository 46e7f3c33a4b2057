import type { Context, Middleware } from 'koa';
import ipaddr from 'ipaddr.js';
import type { Services } from '../routers/context.ts';
import { AppError } from '../src/errors.ts';
import { parseBearer, sameSecret } from '../src/accounts/secret-scheme.ts';
import { whenResponseDone } from './request-log.ts';

export const METRICS_PATH = '/metrics';

const knownMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

interface RoutedContext {
  /** Set by @koa/router to the pattern of the route that ran. */
  _matchedRoute?: unknown;
  /** Set by @koa/router to every layer whose path matched (also when no method did: 405). */
  matched?: Array<{ path: unknown; methods: string[] }>;
}

/**
 * The route a request is counted under: the pattern of the route that answered it
 * (`/api/v1/reports/:id`, also for a 405 on that path), `/trpc` for every tRPC call, and
 * `unmatched` for anything else. Never the raw path, so label values stay a small set.
 */
export function routeLabel(ctx: Context): string {
  const routed = ctx as Context & RoutedContext;
  if (typeof routed._matchedRoute === 'string') return routed._matchedRoute;
  const layers = routed.matched ?? [];
  for (let i = layers.length - 1; i >= 0; i--) {
    if (layers[i].methods.length > 0 && typeof layers[i].path === 'string') return layers[i].path as string;
  }
  if (ctx.path === '/trpc' || ctx.path.startsWith('/trpc/')) return '/trpc';
  return 'unmatched';
}

/** Whether `ip` (the client as Koa sees it: behind TRUST_PROXY, the proxy's last entry) is loopback. */
function isLoopback(ip: string): boolean {
  return ipaddr.isValid(ip) && ipaddr.process(ip).range() === 'loopback';
}

/** Whether `header` is `Bearer <token>`; compares SHA-256 digests in constant time. */
function bearerMatches(header: string, token: string): boolean {
  return sameSecret(parseBearer(header) ?? '', token);
}

/**
 * Counts every request (http_requests_total, http_request_duration_seconds) once its
 * response has finished, with the status actually sent (`aborted` when the connection went
 * first), and serves GET /metrics in the Prometheus text format from the instance's own
 * registry. METRICS_ENABLED=false leaves /metrics to the 404 of unknown routes; with
 * METRICS_TOKEN set it needs `Authorization: Bearer <token>` (401 otherwise), and without one it
 * answers loopback clients only (403 otherwise): what the service is doing, and for whom, is
 * not every visitor's to read. Mount it inside
 * the error handler, so its refusals get the documented error shape.
 */
export function metricsMiddleware(services: Services): Middleware {
  const { metrics, config } = services;
  const serveMetrics = async (ctx: Context) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      throw new AppError('ERR_METHOD_NOT_ALLOWED', 'Method not allowed.', { headers: { Allow: 'GET, HEAD' } });
    }
    if (config.METRICS_TOKEN && !bearerMatches(ctx.get('Authorization'), config.METRICS_TOKEN)) {
      throw new AppError('ERR_UNAUTHORIZED', 'A valid metrics token is required.', {
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    }
    if (!config.METRICS_TOKEN && !isLoopback(ctx.ip)) {
      throw new AppError('ERR_FORBIDDEN', 'Metrics answer loopback clients only unless METRICS_TOKEN is set.');
    }
    const body = await metrics.registry.metrics();
    ctx.set('Cache-Control', 'no-store');
    ctx.type = metrics.registry.contentType;
    ctx.body = body;
  };
  // Not an async function: every other request passes through with no promise of its own.
  return (ctx, next) => {
    // performance.now(): a double per reading, where hrtime.bigint() allocates a BigInt.
    const started = performance.now();
    // Assigned below once the request is known to be for /metrics; read when the response is done.
    let route: string | undefined = undefined;
    whenResponseDone(ctx, () => {
      metrics.observeRequest(
        {
          method: knownMethods.has(ctx.method) ? ctx.method : 'other',
          route: route ?? routeLabel(ctx),
          status: ctx.res.writableFinished ? ctx.res.statusCode : 'aborted',
        },
        (performance.now() - started) / 1000,
      );
    });

    if (ctx.path !== METRICS_PATH || !config.METRICS_ENABLED) return next();
    route = METRICS_PATH;
    return serveMetrics(ctx);
  };
}
