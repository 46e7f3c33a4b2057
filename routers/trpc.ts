import { initTRPC, TRPCError } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY, type TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { AppError, type PublicErrorCode } from '../src/errors.ts';
import { authenticateApiKey } from '../src/accounts/api-keys.ts';
import { rejectUnstorableText } from '../src/input/guards.ts';
import type { InnerContext } from './context.ts';

/** How a caller proves who it is. The facade reads this to pick its checks. */
export type AuthKind = 'public' | 'apiKey' | 'origin';

/** Per-route rate limit: `max` requests per `windowMs`, counted per client (see facade). */
export interface RateLimitMeta {
  max: number;
  windowMs: number;
}

export type Meta = OpenApiMeta<{
  /** Set by the procedure builders below; absent means public. */
  auth?: AuthKind;
  rateLimit?: RateLimitMeta;
  /** Status of a successful REST answer; 200 unless said. */
  successStatus?: number;
  /** A binary answer: the procedure returns a Buffer sent with this content type. */
  responseType?: 'image/png';
  /** More methods serving the same path and procedure (PATCH beside PUT, as Laravel's resource routes). */
  aliasMethods?: Array<'PUT' | 'PATCH'>;
  /**
   * The procedure mints or changes a credential (an API key, a site secret, a webhook): a
   * console session may call it only with an API key of its account typed again
   * (`X-Confirm-Key`, checked where the session is resolved: facade/trpc-mount.ts). Calls with
   * a Bearer key are not affected.
   */
  credential?: boolean;
  /**
   * Codes this route may answer beyond those its auth kind, limit and input imply (the
   * OpenAPI document lists them under their statuses; facade/openapi.ts).
   */
  errorCodes?: PublicErrorCode[];
}>;

/**
 * tRPC's code for an HTTP status, read from tRPC's own table (the last key of a status wins,
 * so 400 is BAD_REQUEST, not PARSE_ERROR): our codes carry only their status.
 */
const trpcCodeByStatus = new Map<number, TRPC_ERROR_CODE_KEY>(
  (Object.keys(TRPC_ERROR_CODES_BY_KEY) as TRPC_ERROR_CODE_KEY[]).map((code) => [
    getHTTPStatusCodeFromError(new TRPCError({ code })),
    code,
  ]),
);
const trpcCodeOf = (status: number): TRPC_ERROR_CODE_KEY =>
  trpcCodeByStatus.get(status) ?? (status < 500 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR');

const t = initTRPC
  .context<InnerContext>()
  .meta<Meta>()
  .create({
    errorFormatter({ shape, error }) {
      const app = error.cause instanceof AppError ? error.cause : undefined;
      return {
        ...shape,
        message: error.code === 'INTERNAL_SERVER_ERROR' && !app ? 'Internal server error.' : shape.message,
        data: {
          code: shape.data.code,
          httpStatus: shape.data.httpStatus,
          path: shape.data.path,
          /** The stable public code, as in REST error bodies (`ERR_NOT_FOUND`, ...). */
          errorCode: app?.code,
          errors: app?.errors,
          reason: app?.reason,
        },
      };
    },
  });

/** The TRPCError an AppError stands for: its code, its message, the AppError as `cause`. */
const asTRPCError = (app: AppError) =>
  new TRPCError({ code: trpcCodeOf(app.status), message: app.message, cause: app });

export const router = t.router;

/**
 * Every procedure's first and only shared step: refuses input no procedure can store or mean
 * anything by (NUL characters, unpaired surrogates; REST and /trpc alike), then turns an AppError thrown anywhere
 * below into a TRPCError with the matching code, so /trpc answers with the right HTTP status;
 * the AppError stays as `cause` for the REST facade.
 */
const guardAndMapErrors = t.middleware(async ({ getRawInput, next }) => {
  try {
    rejectUnstorableText(await getRawInput());
    const result = await next();
    if (!result.ok && result.error.cause instanceof AppError) throw asTRPCError(result.error.cause);
    return result;
  } catch (err) {
    throw err instanceof AppError ? asTRPCError(err) : err;
  }
});

const base = t.procedure.use(guardAndMapErrors);

/** No credentials. */
export const publicProcedure = base.meta({ auth: 'public' });

/**
 * What a middleware hands `next({ ctx })`: `added`, with the context's `em` and `log`. tRPC
 * spreads the context it passes on, which copies own properties only, and the facade's context
 * reads these two on use, from getters on its prototype (facade/koa-context.ts).
 */
function passedOn<A extends object>(ctx: InnerContext, added: A): A & Pick<InnerContext, 'em' | 'log'> {
  return { ...added, em: ctx.em, log: ctx.log };
}

/** Needs `Authorization: Bearer <API key>`; adds `apiKey` and `user` to the context. */
export const apiKeyProcedure = base.meta({ auth: 'apiKey' }).use(async ({ ctx, next }) => {
  const apiKey = ctx.apiKey ?? (await authenticateApiKey(ctx.em, ctx.request.authorization));
  return next({ ctx: passedOn(ctx, { apiKey, user: apiKey.user }) });
});

/**
 * Browser routes: the registered-origin check needs the site, which the procedure knows
 * from its input, so each origin procedure calls the site check itself (src/captcha).
 */
export const originProcedure = base.meta({ auth: 'origin' });
