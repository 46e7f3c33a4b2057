import type { Context } from 'koa';
import type { Logger } from 'pino';
import type { ApiKey } from '../src/entities/api-key.entity.ts';
import type { InnerContext, RequestInfo, Services } from '../routers/context.ts';
import { AppError } from '../src/errors.ts';
import type { OriginalRequest } from '../src/gateway/forwarded.ts';
import { routeLabel } from './metrics.ts';

/**
 * What the facade's middlewares keep in `ctx.state` (Koa types it `any`): the request id and
 * child logger of the request log, the key the API-key gate admitted, the inner context once
 * made, koa-ratelimit's verdict, and the gateway's reading of a protected host's request. Every field is absent until its middleware has run.
 */
interface FacadeState {
  requestId?: string;
  log?: Logger;
  apiKey?: ApiKey;
  inner?: InnerContext;
  rateLimit?: { after?: unknown };
  /** A protected host's request as the gateway reads it (facade/gateway.ts), built once. */
  gatewayOriginal?: OriginalRequest;
}

/** `ctx.state`, typed as the facade's middlewares fill it. */
export function facadeState(ctx: Context) {
  return ctx.state as FacadeState;
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
    controller.abort(
      new AppError('ERR_BAD_REQUEST', 'The client closed the connection before its answer was written.'),
    );
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
  ) {}
  private header(name: string): string | undefined {
    return this.koa.get(name) || undefined;
  }
  get ip(): string {
    return this.koa.ip;
  }
  get route(): string {
    return routeLabel(this.koa);
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
  get clientHints() {
    return { ua: this.header('Sec-CH-UA'), platform: this.header('Sec-CH-UA-Platform') };
  }
  /** Over TLS (as the trusted proxy says, with TRUST_PROXY) or on a loopback host: where a Chromium sends client hints. */
  get secureTransport(): boolean {
    return this.koa.secure || /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i.test(this.koa.hostname);
  }
  /** Made on first use: only procedures doing long work (an analysis) ask for it. */
  get signal(): AbortSignal {
    return (this.#signal ??= clientGoneSignal(this.koa));
  }
}

/**
 * The facade's layer of the context: what procedures may know of the Koa request (read on
 * use) and the transport-neutral inner context around the request's own fork of the
 * EntityManager, made when first read (no MikroORM RequestContext: nothing here reads the
 * ORM's global context).
 *
 * A class, `em` and `log` getters on its prototype: every request's context shares one hidden
 * class. Written as getters of an object literal, they were new closures on each request, and
 * V8 gave each such object a hidden class of its own, made in the old generation (about 1.3 KB
 * a request that only a full collection frees). A spread copies own properties only, so a
 * middleware that passes a context on (tRPC's `next({ ctx })` spreads it) carries `em` and
 * `log` itself (routers/trpc.ts, `passedOn`).
 */
class KoaInnerContext implements InnerContext {
  readonly config: Services['config'];
  readonly orm: Services['orm'];
  readonly stores: Services['stores'];
  readonly analyzer: Services['analyzer'];
  readonly metrics: Services['metrics'];
  readonly engineReference: Services['engineReference'];
  readonly networks: Services['networks'];
  readonly analytics: Services['analytics'];
  readonly queue: Services['queue'];
  readonly request: RequestInfo;
  apiKey?: ApiKey;
  #em: InnerContext['em'] | undefined = undefined;
  readonly #state: FacadeState;
  readonly #rootLog: Logger;

  constructor(services: Services, koa: Context, state: FacadeState) {
    // The services by name: `services` may carry more (an opened instance's close, its database).
    this.config = services.config;
    this.orm = services.orm;
    this.stores = services.stores;
    this.analyzer = services.analyzer;
    this.metrics = services.metrics;
    this.engineReference = services.engineReference;
    this.networks = services.networks;
    this.analytics = services.analytics;
    this.queue = services.queue;
    this.request = new KoaRequestInfo(koa, state.requestId ?? 'internal');
    if (state.apiKey) this.apiKey = state.apiKey;
    this.#state = state;
    this.#rootLog = services.log;
  }

  /**
   * Forked on first use (decision 0019): siteverify, the challenge routes and /metrics mostly
   * answer from caches and stores, and a fork is the largest allocation of their request.
   */
  get em(): InnerContext['em'] {
    return (this.#em ??= this.orm.em.fork());
  }

  /** The request's child logger, made when a procedure first logs (state.log makes it). */
  get log(): Logger {
    return this.#state.log ?? this.#rootLog;
  }
}

/** The request's inner context ({@link KoaInnerContext}), made once per request. */
export function contextFromKoa(services: Services, ctx: Context): InnerContext {
  const state = facadeState(ctx);
  const made = state.inner;
  if (made) {
    // Made before the API-key gate admitted the caller: it shares the gate's EntityManager.
    if (state.apiKey) made.apiKey = state.apiKey;
    return made;
  }
  const inner = new KoaInnerContext(services, ctx, state);
  state.inner = inner;
  return inner;
}
