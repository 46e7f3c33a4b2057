import { TRPCError } from '@trpc/server';
import { AppError, errorStatus, type ErrorCode, type FieldErrors } from '../src/errors.ts';

/** The one error body of every route but siteverify (DESIGN section 5). */
export interface ErrorBody {
  message: string;
  status: number;
  errors?: FieldErrors;
  /** Why, within the status (a report whose URL could not be analysed: the analyzer's reason). */
  reason?: string;
}

export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  /** True when the cause was not an expected failure and deserves an error log. */
  unexpected: boolean;
}

/** Statuses raised by libraries below us (co-body, Koa) that are the client's fault, by code. */
const httpStatusCodes: Record<number, ErrorCode> = {
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

const libraryMessages: Partial<Record<ErrorCode, string>> = {
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
    return fromAppError(new AppError('UNAVAILABLE', 'A dependency is unavailable; try again shortly.', { retryAfter: 5 }), true);
  }
  const status = (err as { status?: unknown; statusCode?: unknown })?.status ?? (err as { statusCode?: unknown })?.statusCode;
  if (typeof status === 'number' && httpStatusCodes[status]) {
    const code = httpStatusCodes[status]!;
    return fromAppError(new AppError(code, libraryMessages[code] ?? defaultMessage(status)), false);
  }
  return {
    status: 500,
    body: { message: 'Internal server error.', status: 500 },
    headers: {},
    unexpected: true,
  };
}

function fromAppError(err: AppError, unexpected: boolean): ErrorResponse {
  const status = errorStatus[err.code];
  const headers: Record<string, string> = { ...err.headers };
  if (err.retryAfter !== undefined) headers['Retry-After'] = String(Math.max(1, Math.ceil(err.retryAfter)));
  const body: ErrorBody = { message: status === 500 ? 'Internal server error.' : err.message, status };
  if (err.errors) body.errors = err.errors;
  if (err.reason) body.reason = err.reason;
  return { status, body, headers, unexpected: unexpected || status >= 500 };
}

/** Connection-level failures of PostgreSQL or Redis (refused, reset, terminated, pool timeout). */
const connectionCodes = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH',
  '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006',
]);
const connectionMessages = /Connection terminated|terminating connection|Client has encountered a connection error|Timeout acquiring a connection|The client is closed|Socket closed unexpectedly/i;

/**
 * Whether a failure means a dependency is down rather than a bug: such requests get 503
 * with Retry-After (DESIGN section 5), not a bare 500. Looks through `cause` chains, since
 * tRPC and MikroORM wrap driver errors.
 */
function dependencyDown(err: unknown): boolean {
  let e = err as { code?: unknown; name?: string; message?: string; cause?: unknown } | undefined;
  for (let depth = 0; e && typeof e === 'object' && depth < 6; depth++, e = e.cause as typeof e) {
    if (e.name === 'ConnectionException' || e.name === 'KnexTimeoutError') return true;
    if (typeof e.code === 'string' && connectionCodes.has(e.code)) return true;
    if (typeof e.message === 'string' && connectionMessages.test(e.message)) return true;
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
  const first = errors[fields[0]!]![0];
  return fields.length === 1 ? `${fields[0]}: ${first}` : `${fields[0]}: ${first} (and ${fields.length - 1} more errors)`;
}

function defaultMessage(status: number): string {
  switch (status) {
    case 401: return 'Unauthenticated.';
    case 403: return 'Forbidden.';
    case 404: return 'Not found.';
    case 405: return 'Method not allowed.';
    case 429: return 'Too many requests.';
    default: return 'Bad request.';
  }
}
