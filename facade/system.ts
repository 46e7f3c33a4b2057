import Router from '@koa/router';
import type { AnyRouter } from '@trpc/server';
import type { Services } from '../src/services.ts';
import { errorBody } from './errors.ts';
import { buildOpenApiDocument, renderReferencePage } from './openapi.ts';

/** Operational and documentation routes: health, readiness, the OpenAPI document, the reference page. */
export function systemRouter(services: Services, router: AnyRouter): Router {
  const doc = buildOpenApiDocument(router);
  const page = renderReferencePage(doc);
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
  r.get('/api/openapi.json', (ctx) => {
    ctx.body = doc;
  });
  r.get('/api/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
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
