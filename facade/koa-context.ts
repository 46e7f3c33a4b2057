import type { Context } from 'koa';
import type { EntityManager } from '@mikro-orm/postgresql';
import { createInnerContext, type InnerContext, type Services } from '../routers/context.ts';

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
      // eslint-disable-next-line @typescript-eslint/no-unsafe-return -- lint debt from the type-aware rule set, listed in README "Lint, format, layers"
      return typeof value === 'function' ? value.bind(fork) : value;
    },
    has: (_target, key) => key in (fork ??= root.fork()),
    // eslint-disable-next-line @typescript-eslint/no-unsafe-return -- lint debt from the type-aware rule set, listed in README "Lint, format, layers"
    getPrototypeOf: () => Object.getPrototypeOf(root),
  });
}

/**
 * The facade's layer of the context: reads what procedures may know from the Koa request
 * and builds the transport-neutral inner context around a lazily forked EntityManager (no
 * MikroORM RequestContext: nothing here reads the ORM's global context).
 */
export function contextFromKoa(services: Services, ctx: Context): InnerContext {
  const made = ctx.state.inner as InnerContext | undefined;
  if (made) {
    // Made before the API-key gate admitted the caller: it shares the gate's EntityManager.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- lint debt from the type-aware rule set, listed in README "Lint, format, layers"
    if (ctx.state.apiKey) made.apiKey = ctx.state.apiKey;
    return made;
  }
  const header = (name: string) => ctx.get(name) || undefined;
  const inner = createInnerContext(
    services,
    {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- lint debt from the type-aware rule set, listed in README "Lint, format, layers"
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
    lazyEntityManager(services.orm.em),
  );
  // The request's child logger is made only if a procedure logs.
  Object.defineProperty(inner, 'log', {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-return -- lint debt from the type-aware rule set, listed in README "Lint, format, layers"
    get: () => ctx.state.log ?? services.log,
    enumerable: true,
    configurable: true,
  });
  // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- lint debt from the type-aware rule set, listed in README "Lint, format, layers"
  if (ctx.state.apiKey) inner.apiKey = ctx.state.apiKey;
  ctx.state.inner = inner;
  return inner;
}
