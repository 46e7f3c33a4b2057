import Router from '@koa/router';
import type { AnyRouter } from '@trpc/server';
import type { Services } from '../src/services.ts';
import { errorBody } from './errors.ts';

/** Operational and documentation routes: health, readiness and the OpenAPI document (its viewer: api-docs.ts). */
export function systemRouter(services: Services, router: AnyRouter): Router {
  // The document is built on its first request, not at start: its generator (trpc-to-openapi,
  // zod-openapi, yaml) is a good share of what a start would otherwise load.
  let documents: Promise<{ doc: unknown }> | undefined;
  const openApi = () =>
    (documents ??= import('./openapi.ts').then(({ buildOpenApiDocument }) => ({ doc: buildOpenApiDocument(router) })));
  const r = new Router();
  r.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  r.get('/readyz', async (ctx) => {
    const [database, store] = await Promise.all([
      services.orm.em
        .getConnection()
        .execute('select 1')
        .then(
          () => 'ok' as const,
          () => 'down' as const,
        ),
      withTimeout(services.stores.ping(), 2000).then(
        () => 'ok' as const,
        () => 'down' as const,
      ),
    ]);
    const ready = database === 'ok' && store === 'ok';
    ctx.status = ready ? 200 : 503;
    if (!ready) ctx.set('Retry-After', '5');
    ctx.body = ready
      ? { status: 'ready', checks: { database, store } }
      : { ...errorBody('ERR_NOT_READY', 'A dependency is down.'), checks: { database, store } };
  });
  r.get('/api/openapi.json', async (ctx) => {
    ctx.body = (await openApi()).doc;
  });
  return r;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), ms);
    }),
  ]);
}
