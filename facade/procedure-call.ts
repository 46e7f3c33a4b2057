import { getTRPCErrorFromUnknown, type AnyRouter } from '@trpc/server';

/** A tRPC middleware as the procedure definition holds it (`_type` marks the built-in ones). */
interface DefMiddleware {
  (opts: MiddlewareOpts): Promise<MiddlewareResult>;
  _type?: 'input' | 'output' | 'errors';
}

interface MiddlewareResult {
  ok: boolean;
  data?: unknown;
  error?: unknown;
  ctx?: unknown;
}

interface NextOpts {
  ctx?: Record<string, unknown>;
  input?: unknown;
  getRawInput?: () => Promise<unknown>;
}

interface MiddlewareOpts {
  ctx: unknown;
  type: 'query' | 'mutation';
  path: string;
  input: unknown;
  getRawInput: () => Promise<unknown>;
  meta: unknown;
  signal: undefined;
  batchIndex: number;
  next(opts?: NextOpts): Promise<MiddlewareResult>;
}

export interface ProcedureCallOptions {
  /**
   * Run the procedure's output parser. Off, the procedure's own return value is sent: for
   * routes whose answers the service builds from literals (siteverify verdicts, challenges),
   * the parser only re-checks what the types already guarantee.
   */
  validateOutput: boolean;
}

/**
 * Whether output parsers run on every route: under the test runner they do, so a procedure
 * whose answer drifts from its declared output fails its tests even where production skips
 * the check.
 */
export const validateEveryOutput = process.env.VITEST !== undefined;

/**
 * An in-process caller for one procedure of `router` that runs the procedure's own
 * middleware chain (error mapping, input guard, auth, input parser, resolver) the way tRPC's
 * caller does, with the same `next()` semantics, but without its per-step object spreading,
 * and without the output parser where `validateOutput` is off. /trpc keeps tRPC's own caller.
 */
export function procedureCaller(router: AnyRouter, path: string, opts: ProcedureCallOptions) {
  const procedure = (
    router._def.procedures as Record<
      string,
      { _def: { middlewares: DefMiddleware[]; meta: unknown; type: 'query' | 'mutation' } }
    >
  )[path];
  if (!procedure) throw new Error(`no procedure ${path}`);
  const { meta, type } = procedure._def;
  const validate = opts.validateOutput || validateEveryOutput;
  const chain = procedure._def.middlewares.filter((m) => validate || m._type !== 'output');

  const failed = (cause: unknown): MiddlewareResult => ({ ok: false, error: getTRPCErrorFromUnknown(cause) });

  // Not async functions: one promise a step (the `then` that turns a throw into a failed
  // result), not two, since every promise costs the async hooks MikroORM's storages enable.
  function step(
    index: number,
    ctx: unknown,
    input: unknown,
    getRawInput: () => Promise<unknown>,
  ): Promise<MiddlewareResult> {
    let result: Promise<MiddlewareResult>;
    try {
      result = chain[index]({
        ctx,
        type,
        path,
        input,
        getRawInput,
        meta,
        signal: undefined,
        batchIndex: 0,
        next(nextOpts) {
          if (!nextOpts) return step(index + 1, ctx, input, getRawInput);
          return step(
            index + 1,
            nextOpts.ctx ? { ...(ctx as object), ...nextOpts.ctx } : ctx,
            'input' in nextOpts ? nextOpts.input : input,
            nextOpts.getRawInput ?? getRawInput,
          );
        },
      });
    } catch (cause) {
      return Promise.resolve(failed(cause));
    }
    return result.then(undefined, failed);
  }

  /** Resolves with the procedure's answer; rejects with the TRPCError it failed with. */
  return (ctx: unknown, rawInput: unknown): Promise<unknown> =>
    step(0, ctx, undefined, () => Promise.resolve(rawInput)).then((result) => {
      if (!result.ok) throw result.error;
      return result.data;
    });
}
