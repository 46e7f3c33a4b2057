import type { Context } from 'koa';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { ApiKey } from '../src/entities/api-key.entity.ts';
import type { InnerContext, RequestInfo, Services } from '../routers/context.ts';
import { AppError } from '../src/errors.ts';

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

/** What a lazy EntityManager's proxy keeps: the ORM's root manager and, once used, its fork. */
interface LazyFork {
  root: EntityManager;
  fork?: EntityManager;
}

const forkOf = (lazy: LazyFork): EntityManager => (lazy.fork ??= lazy.root.fork());

/** One handler for every lazy EntityManager: a request then makes just its proxy and a small target. */
const lazyForkHandler: ProxyHandler<LazyFork> = {
  get(lazy, key) {
    const fork = forkOf(lazy);
    const value = (fork as unknown as Record<PropertyKey, unknown>)[key];
    return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(fork) : value;
  },
  has: (lazy, key) => key in forkOf(lazy),
  getPrototypeOf: (lazy) => Object.getPrototypeOf(lazy.root) as object | null,
};

/**
 * An EntityManager that forks the ORM's on first use: a request that touches no table (a
 * siteverify answered from the site cache, a challenge for a cached site) pays for no fork
 * and no identity map. Every property read goes to the one fork, methods bound to it.
 */
export function lazyEntityManager(root: EntityManager): EntityManager {
  return new Proxy<LazyFork>({ root }, lazyForkHandler) as unknown as EntityManager;
}

/**
 * A signal that aborts when the response's connection closes before the response was written
 * in full: the client gave up (or the request's deadline destroyed the socket). Node emits the
 * response's `close` then; after a complete response, `writableFinished` is already true.
 */
function clientGoneSignal(ctx: Context): AbortSignal {
  const controller = new AbortController();
  const { req, res } = ctx;
  const gone = () =>
    controller.abort(new AppError('BAD_REQUEST', 'The client closed the connection before its answer was written.'));
  if (res.writableFinished) return controller.signal;
  if (res.destroyed || req.socket?.destroyed) gone();
  else res.once('close', () => res.writableFinished || gone());
  return controller.signal;
}

/**
 * What procedures may know of a Koa request, read from it when asked: most procedures read
 * one or two fields (siteverify only the address), so no header is read or URL built ahead.
 */
class KoaRequestInfo implements RequestInfo {
  #signal: AbortSignal | undefined = undefined;
  constructor(
    private readonly koa: Context,
    readonly requestId: string,
    private readonly rootLog: Logger,
  ) {}
  /** The request's child logger (the request log makes it on first use), else the root one. */
  get log(): Logger {
    return facadeState(this.koa).log ?? this.rootLog;
  }
  private header(name: string): string | undefined {
    return this.koa.get(name) || undefined;
  }
  get ip(): string {
    return this.koa.ip;
  }
  get baseUrl(): string {
    return `${this.koa.protocol}://${this.koa.host}`;
  }
  get authorization() {
    return this.header('Authorization');
  }
  get origin() {
    return this.header('Origin');
  }
  get referer() {
    return this.header('Referer');
  }
  get userAgent() {
    return this.header('User-Agent');
  }
  get acceptLanguage() {
    return this.header('Accept-Language');
  }
  get secFetchSite() {
    return this.header('Sec-Fetch-Site');
  }
  /** Made on first use: only procedures doing long work (an analysis) ask for it. */
  get signal(): AbortSignal {
    return (this.#signal ??= clientGoneSignal(this.koa));
  }
}

/**
 * The inner context's `log`, the request's child logger, made only if a procedure logs: an
 * own enumerable getter (so spreading a context copies it), one function shared by every
 * context. A getter written in the context's literal is a new function per request: each
 * context then gets a hidden class of its own, made in old space, which holds that request's
 * objects past every young-generation collection.
 */
const requestLogProperty = {
  get(this: { request: KoaRequestInfo }): Logger {
    return this.request.log;
  },
  enumerable: true,
  configurable: true,
} as const satisfies PropertyDescriptor;

/**
 * The facade's layer of the context: what procedures may know of the Koa request (read on
 * use) and the transport-neutral inner context around a lazily forked EntityManager (no
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
  // Listed one by one rather than spread: a literal of known shape is built from a template,
  // where a spread is built key by key.
  const fields = {
    config: services.config,
    orm: services.orm,
    stores: services.stores,
    analyzer: services.analyzer,
    metrics: services.metrics,
    engineReference: services.engineReference,
    analytics: services.analytics,
    queue: services.queue,
    em: lazyEntityManager(services.orm.em),
    request: new KoaRequestInfo(ctx, state.requestId ?? 'internal', services.log),
  };
  const inner: InnerContext = Object.defineProperty(
    fields as typeof fields & { log: Logger },
    'log',
    requestLogProperty,
  );
  if (state.apiKey) inner.apiKey = state.apiKey;
  state.inner = inner;
  return inner;
}
