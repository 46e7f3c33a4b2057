import type { Context } from 'koa';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { ApiKey } from '../src/entities/api-key.entity.ts';
import { createInnerContext, type InnerContext, type Services } from '../routers/context.ts';

/**
 * What the facade's middlewares keep in `ctx.state` (Koa types it `any`): the request id and
 * child logger of the request log, the key the API-key gate admitted, the inner context once
 * made, and koa-ratelimit's verdict. Every field is absent until its middleware has run.
 */
interface FacadeState {
  requestId?: string;
  log?: Logger;
  apiKey?: ApiKey;
  inner?: InnerContext;
  rateLimit?: { after?: unknown };
}

/** `ctx.state`, typed as the facade's middlewares fill it. */
export function facadeState(ctx: Context) {
  return ctx.state as FacadeState;
}

/**
 * An EntityManager that forks the ORM's on first use: a request that touches no table (a
 * siteverify answered from the site cache, a challenge for a cached site) pays for no fork
 * and no identity map. Every property read goes to the one fork, methods bound to it.
 */
export function lazyEntityManager(root: EntityManager): EntityManager {
  let fork: EntityManager | undefined;
  return new Proxy({} as EntityManager, {
    get(_target, key) {
      fork ??= root.fork();
      const value = (fork as unknown as Record<PropertyKey, unknown>)[key];
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(fork) : value;
    },
    has: (_target, key) => key in (fork ??= root.fork()),
    getPrototypeOf: () => Object.getPrototypeOf(root) as object | null,
  });
}

/**
 * The facade's layer of the context: reads what procedures may know from the Koa request
 * and builds the transport-neutral inner context around a lazily forked EntityManager (no
 * MikroORM RequestContext: nothing here reads the ORM's global context).
 */
export function contextFromKoa(services: Services, ctx: Context): InnerContext {
  const state = facadeState(ctx);
  const made = state.inner;
  if (made) {
    // Made before the API-key gate admitted the caller: it shares the gate's EntityManager.
    if (state.apiKey) made.apiKey = state.apiKey;
    return made;
  }
  const header = (name: string) => ctx.get(name) || undefined;
  const inner = createInnerContext(
    services,
    {
      requestId: state.requestId,
      ip: ctx.ip,
      baseUrl: `${ctx.protocol}://${ctx.host}`,
      authorization: header('Authorization'),
      origin: header('Origin'),
      referer: header('Referer'),
      userAgent: header('User-Agent'),
      acceptLanguage: header('Accept-Language'),
      secFetchSite: header('Sec-Fetch-Site'),
    },
    lazyEntityManager(services.orm.em),
  );
  // The request's child logger is made only if a procedure logs.
  Object.defineProperty(inner, 'log', {
    get: (): Logger => facadeState(ctx).log ?? services.log,
    enumerable: true,
    configurable: true,
  });
  if (state.apiKey) inner.apiKey = state.apiKey;
  state.inner = inner;
  return inner;
}
