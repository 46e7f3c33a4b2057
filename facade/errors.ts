import { TRPCError } from '@trpc/server';
import { isDependencyDown } from '../src/outages.ts';
import { AppError, codeForStatus, errorCodes, type FieldErrors, type PublicErrorCode } from '../src/errors.ts';

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
    return fromAppError(new AppError('ERR_VALIDATION', summarize(issues), { errors: issues }), false);
  }
  if (isDependencyDown(err)) {
    const down = new AppError('ERR_UNAVAILABLE', 'A dependency is unavailable; try again shortly.', { retryAfter: 5 });
    return fromAppError(down, true);
  }
  // A library's own HTTP error (co-body's 413, Koa's ctx.throw) keeps its status when it is the
  // client's fault, with the status's generic code and message; never the library's text.
  const status = libraryStatus(err);
  const code = status !== undefined && status < 500 ? codeForStatus(status) : undefined;
  if (code) return fromAppError(new AppError(code), false);
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
  const status = err.status;
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
