import { IncomingMessage, ServerResponse } from 'node:http';
import Koa from 'koa';
import type { AnyRouter } from '@trpc/server';
import { appRouter, typedClientRouter } from '../routers/root.ts';
import type { Services } from '../routers/context.ts';
import { errorHandler } from './error-handler.ts';
import { requestLog } from './request-log.ts';
import { restRoutes } from './rest.ts';
import { systemRouter } from './system.ts';
import { apiDocsRouter } from './api-docs.ts';
import { pagesRouter } from './pages.ts';
import { trpcMount } from './trpc-mount.ts';
import { widgetRouter } from './widget.ts';
import { metricsMiddleware } from './metrics.ts';
import { securityHeaders } from './security-headers.ts';
import { consoleRouter } from './console.ts';
import { gatewayPrefix, gatewayRouter } from './gateway.ts';
import { Gateway } from '../src/gateway/gateway.ts';
import { forwardAuthListener, type ForwardAuthListener } from './forward-auth.ts';

/**
 * Koa, with the proxies' forward-auth endpoint answered ahead of its middleware (decision
 * 0019): `callback()`, which `listen` and any test harness serve, hands that one path to the
 * endpoint's own listener and every other request to Koa.
 */
class ServiceApp extends Koa {
  constructor(
    options: { proxy: boolean; maxIpsCount: number },
    private readonly forwardAuth: ForwardAuthListener,
  ) {
    super(options);
  }

  override callback(): ReturnType<Koa['callback']> {
    const koa = super.callback();
    const forwardAuth = this.forwardAuth;
    // HTTP/1 only (the proxies' protocol); anything else is Koa's.
    return (req, res) =>
      req instanceof IncomingMessage && res instanceof ServerResponse && forwardAuth(req, res)
        ? Promise.resolve()
        : koa(req, res);
  }
}

/**
 * The HTTP facade: knows HTTP, nothing of the domain. Order matters: request id and log
 * first, then the error choke point, then the routes. No MikroORM RequestContext: each
 * request's context holds its own fork of the EntityManager (koa-context.ts, MikroORM's
 * explicit `em.fork()`).
 */
export function createApp(
  services: Services,
  router: AnyRouter = appRouter,
  trpcRouter: AnyRouter = typedClientRouter,
): Koa {
  // Each app is one instance: its own copy of the gateway's sites, refreshed through the store.
  const gateway = new Gateway(services.config, services.stores, () => services.orm.em.fork());
  // Behind a proxy, the client is the address the proxy appended last to X-Forwarded-For
  // (maxIpsCount 1): entries a client wrote itself further left are not trusted.
  const app = new ServiceApp(
    { proxy: services.config.TRUST_PROXY, maxIpsCount: 1 },
    forwardAuthListener(services, gateway),
  );
  app.silent = true;
  const rest = restRoutes(services, router);
  const system = systemRouter(services, router);
  const pages = pagesRouter(services);
  const consolePages = consoleRouter(services);
  const gatewayPages = gatewayRouter(gateway);

  app.use(requestLog(services.log));
  app.use(securityHeaders(services.config));
  app.use(errorHandler());
  app.use(metricsMiddleware(services));
  app.use(gatewayPrefix(gateway));
  app.use(trpcMount(services, trpcRouter));
  app.use(rest.routes());
  // After the REST routes (no path of theirs is one), so an API request passes no router of the gateway's.
  app.use(gatewayPages.routes());
  app.use(system.routes());
  app.use(apiDocsRouter().routes());
  app.use(pages.routes());
  app.use(widgetRouter(services).routes());
  app.use(consolePages.routes());
  app.use(rest.allowedMethods());
  app.use(system.allowedMethods());
  app.use(pages.allowedMethods());
  app.use(consolePages.allowedMethods());
  return app;
}
