import type { Context, Middleware } from 'koa';
import type { AnyRouter } from '@trpc/server';
import { nodeHTTPRequestHandler } from '@trpc/server/adapters/node-http';
import type { Services } from '../routers/context.ts';
import { contextFromKoa } from './koa-context.ts';
import { apiKeyGate } from './api-key-gate.ts';
import { AppError } from '../src/errors.ts';
import type { Meta } from '../routers/trpc.ts';
import { clientKey } from '../src/net/client-key.ts';
import { procedureRecord } from './procedures.ts';
import { CONFIRM_KEY_HEADER, consoleCaller, sessionCookie } from './console-session.ts';
import { rateLimit } from './rate-limit.ts';

/** The most calls one /trpc batch may carry; a larger batch is a 400 before any call runs. */
export const MAX_TRPC_BATCH = 20;

/** The procedure paths a /trpc request calls (a batch names several, comma-separated). */
function calledPaths(path: string, prefix: string): string[] {
  return path.slice(prefix.length + 1).split(',');
}

/**
 * Serves `router` at /trpc for `createTRPCClient<AppRouter>`: every procedure of it, and
 * nothing else (a batch naming any other path is a 404 before any call runs). Requests that carry an
 * Authorization header are authenticated first and share the per-key rate limit of the
 * REST routes, each call of a batch counting as one request; a batch carries at most
 * MAX_TRPC_BATCH calls. Without an Authorization header, a console session cookie stands for
 * the key that opened it (queries need the session, mutations its CSRF token too:
 * facade/console-session.ts) under the same limit. A session's call of a procedure whose meta
 * says `credential: true` also needs the API key typed again (X-Confirm-Key); the calls that
 * carry one are limited per address as sign-ins are. Procedures still check their own auth kind.
 */
export function trpcMount(services: Services, router: AnyRouter, prefix = '/trpc'): Middleware {
  const cost = (ctx: Context) => calledPaths(ctx.path, prefix).length;
  const gate = apiKeyGate(services, { cost });
  const sessionGate = apiKeyGate(services, { cost, authenticate: (ctx) => consoleCaller(services, ctx) });
  const confirmingGate = apiKeyGate(services, { cost, authenticate: (ctx) => consoleCaller(services, ctx, true) });
  // A typed key is a guess at an API key when it is wrong: counted per address as sign-ins, right or wrong.
  const confirmLimit = rateLimit(services.stores, {
    name: 'console-confirm-key',
    max: services.config.CONSOLE_SIGN_IN_ATTEMPTS,
    windowMs: 15 * 60_000,
    id: (ctx) => `ip:${clientKey(ctx.ip)}`,
    onStoreError: 'closed',
    log: services.log,
    metrics: services.metrics,
  });
  const record = procedureRecord(router);
  const served = new Set(Object.keys(record));
  /** Procedures that mint or change a credential: a console session needs the key typed again for them. */
  const credential = new Set(
    Object.entries(record)
      .filter(([, p]) => (p._def.meta as Meta | undefined)?.credential === true)
      .map(([path]) => path),
  );
  const mounted = async (ctx: Context) => {
    const paths = calledPaths(ctx.path, prefix);
    if (paths.length > MAX_TRPC_BATCH) {
      throw new AppError(
        'ERR_BAD_REQUEST',
        `A /trpc batch may carry at most ${MAX_TRPC_BATCH} calls; this one has ${paths.length}.`,
      );
    }
    if (paths.some((p) => !served.has(p))) {
      throw new AppError('ERR_NOT_FOUND', 'No such procedure on /trpc.');
    }
    // Without a key, the procedure itself answers tRPC's UNAUTHORIZED.
    if (ctx.get('Authorization')) await gate(ctx, () => serve(ctx));
    else if (!sessionCookie(ctx)) await serve(ctx);
    else if (!paths.some((p) => credential.has(p))) await sessionGate(ctx, () => serve(ctx));
    else if (!ctx.get(CONFIRM_KEY_HEADER))
      await confirmingGate(ctx, () => serve(ctx)); // refused: no key typed
    else {
      await confirmLimit(ctx, async () => {
        await confirmingGate(ctx, () => serve(ctx));
      });
    }
  };
  // Every other request passes through as it came, with no promise of this middleware's own.
  return (ctx, next) => (ctx.path === prefix || ctx.path.startsWith(prefix + '/') ? mounted(ctx) : next());

  async function serve(ctx: Context): Promise<void> {
    const inner = contextFromKoa(services, ctx);
    ctx.respond = false;
    // Koa starts every response at 404; tRPC only replaces a 200 with its own status.
    ctx.res.statusCode = 200;
    await nodeHTTPRequestHandler({
      req: ctx.req,
      res: ctx.res,
      router,
      path: ctx.path.slice(prefix.length + 1),
      maxBodySize: services.config.BODY_LIMIT_BYTES,
      maxBatchSize: MAX_TRPC_BATCH,
      createContext: () => inner,
      onError: ({ error }: { error: import('@trpc/server').TRPCError }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR') inner.log.error({ err: error.cause ?? error }, 'trpc error');
      },
    } as never);
  }
}
