import type { Context } from 'koa';
import { RequestContext } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { createInnerContext, type InnerContext, type Services } from '../routers/context.ts';

/**
 * The facade's layer of the context: reads what procedures may know from the Koa request
 * and builds the transport-neutral inner context around the request's EntityManager fork.
 */
export function contextFromKoa(services: Services, ctx: Context): InnerContext {
  const em = (RequestContext.getEntityManager() as EntityManager | undefined) ?? services.orm.em.fork();
  const header = (name: string) => ctx.get(name) || undefined;
  const inner = createInnerContext(
    services,
    {
      requestId: ctx.state.requestId,
      ip: ctx.ip,
      baseUrl: `${ctx.protocol}://${ctx.host}`,
      authorization: header('Authorization'),
      origin: header('Origin'),
      referer: header('Referer'),
      userAgent: header('User-Agent'),
      acceptLanguage: header('Accept-Language'),
      secFetchSite: header('Sec-Fetch-Site'),
    },
    em,
  );
  inner.log = ctx.state.log ?? services.log;
  if (ctx.state.apiKey) inner.apiKey = ctx.state.apiKey;
  return inner;
}
