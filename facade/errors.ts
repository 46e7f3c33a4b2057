import { TRPCError } from '@trpc/server';
import {
  AppError,
  errorCodes,
  errorStatus,
  type ErrorKind,
  type FieldErrors,
  type PublicErrorCode,
} from '../src/errors.ts';

/**
 * The one error body of every route but siteverify (docs/api.md): `code` is stable and
 * documented (src/errors.ts `errorCodes`), `message` is for people, `status` repeats the
 * HTTP status, `errors` lists the fields of a 422.
 */
export interface ErrorBody {
  code: PublicErrorCode;
  message: string;
  status: number;
  errors?: FieldErrors;
  /** Why, within the status (a report whose URL could not be analysed: the analyzer's reason). */
  reason?: string;
}

/**
 * An error body for a code, for the few answers made outside Koa's error handler (Node's
 * 408/431 on a raw socket, /readyz's 503). Everything else goes through `toErrorResponse`.
 */
export function errorBody(code: PublicErrorCode, message: string): ErrorBody {
  return { code, message, status: errorCodes[code].status };
}

export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  /** True when the cause was not an expected failure and deserves an error log. */
  unexpected: boolean;
}

/** Statuses raised by libraries below us (co-body, Koa) that are the client's fault, by code. */
const httpStatusCodes: Record<number, ErrorKind> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'VALIDATION_FAILED',
  429: 'RATE_LIMITED',
};

const libraryMessages: Partial<Record<ErrorKind, string>> = {
  BAD_REQUEST: 'Malformed request body.',
  PAYLOAD_TOO_LARGE: 'Request body too large.',
  UNSUPPORTED_MEDIA_TYPE: 'Unsupported content type.',
};

/**
 * The choke point deciding what a client sees of a failure. AppErrors carry their own
 * message; validation failures list fields; library HTTP errors keep their status with a
 * plain message; anything else is a bare 500 that tells nothing of the internals.
 */
export function toErrorResponse(err: unknown): ErrorResponse {
  const app = findAppError(err);
  if (app) return fromAppError(app, false);
  const issues = findValidationIssues(err);
  if (issues) {
    return fromAppError(new AppError('VALIDATION_FAILED', summarize(issues), { errors: issues }), false);
  }
  if (dependencyDown(err)) {
    const down = new AppError('UNAVAILABLE', 'A dependency is unavailable; try again shortly.', { retryAfter: 5 });
    return fromAppError(down, true);
  }
  const status = libraryStatus(err);
  const kind = status === undefined ? undefined : httpStatusCodes[status];
  if (status !== undefined && kind) {
    return fromAppError(new AppError(kind, libraryMessages[kind] ?? defaultMessage(status)), false);
  }
  return {
    status: 500,
    body: errorBody('ERR_INTERNAL', 'Internal server error.'),
    headers: {},
    unexpected: true,
  };
}

/** The HTTP status a library (co-body, Koa's `ctx.throw`) put on its error, if any. */
function libraryStatus(err: unknown): number | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const { status, statusCode } = err as { status?: unknown; statusCode?: unknown };
  const value = status ?? statusCode;
  return typeof value === 'number' ? value : undefined;
}

function fromAppError(err: AppError, unexpected: boolean): ErrorResponse {
  const status = errorStatus[err.kind];
  const headers: Record<string, string> = { ...err.headers };
  if (err.retryAfter !== undefined) headers['Retry-After'] = String(Math.max(1, Math.ceil(err.retryAfter)));
  const body: ErrorBody =
    status === 500
      ? errorBody('ERR_INTERNAL', 'Internal server error.')
      : { code: err.code, message: err.message, status };
  if (err.errors) body.errors = err.errors;
  if (err.reason) body.reason = err.reason;
  return { status, body, headers, unexpected: unexpected || status >= 500 };
}

/** Connection-level failures of PostgreSQL or Redis (refused, reset, terminated, pool timeout). */
const connectionCodes = new Set([
  ...['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH'],
  ...['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006'],
]);
const connectionMessages = [
  'connection terminated',
  'terminating connection',
  'client has encountered a connection error',
  'timeout acquiring a connection',
  'the client is closed',
  'socket closed unexpectedly',
  'client was closed and is not queryable',
  'connection ended unexpectedly',
  'connection closed',
  // knex, for a query on a transaction whose connection died under it (rolled back by then).
  'transaction query already complete',
];

/**
 * Whether a failure means a dependency is down rather than a bug: such requests get 503
 * with Retry-After (docs/api.md), not a bare 500. Looks through `cause` chains, since
 * tRPC and MikroORM wrap driver errors.
 */
function dependencyDown(err: unknown): boolean {
  let e = err as { code?: unknown; name?: string; message?: string; cause?: unknown } | undefined;
  for (let depth = 0; e && typeof e === 'object' && depth < 6; depth++, e = e.cause as typeof e) {
    if (e.name === 'ConnectionException' || e.name === 'KnexTimeoutError') return true;
    if (typeof e.code === 'string' && connectionCodes.has(e.code)) return true;
    if (typeof e.message === 'string' && connectionMessages.some((m) => e!.message!.toLowerCase().includes(m)))
      return true;
  }
  return false;
}

function findAppError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  if (err instanceof TRPCError && err.cause instanceof AppError) return err.cause;
  return undefined;
}

interface Issue {
  path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>;
  message: string;
}

/** Zod (or any Standard Schema) issues from a failed input parse, as `{field: [messages]}`. */
function findValidationIssues(err: unknown): FieldErrors | undefined {
  if (!(err instanceof TRPCError) || err.code !== 'BAD_REQUEST') return undefined;
  const issues = (err.cause as { issues?: Issue[] } | undefined)?.issues;
  if (!Array.isArray(issues)) return undefined;
  const out: FieldErrors = {};
  for (const issue of issues) {
    const key = (issue.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)).join('.') || 'body';
    (out[key] ??= []).push(issue.message);
  }
  return out;
}

function summarize(errors: FieldErrors): string {
  const fields = Object.keys(errors);
  const first = errors[fields[0]]?.[0];
  const more = fields.length === 1 ? '' : ` (and ${fields.length - 1} more errors)`;
  return `${fields[0]}: ${first}${more}`;
}

function defaultMessage(status: number): string {
  const messages: Record<number, string> = {
    401: 'Unauthenticated.',
    403: 'Forbidden.',
    404: 'Not found.',
    405: 'Method not allowed.',
    429: 'Too many requests.',
  };
  return messages[status] ?? 'Bad request.';
}
