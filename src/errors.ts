/**
 * The closed set of failures the service reports. Procedures and src/ functions throw
 * `AppError`; the facade maps `code` to HTTP through `httpStatusOf` and nothing else.
 */
export const errorStatus = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_FAILED: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

/** Field name to its messages, as in Laravel's validation errors. */
export type FieldErrors = Record<string, string[]>;

export interface AppErrorOptions {
  errors?: FieldErrors;
  /** Seconds, sent as Retry-After on 429 and 503. */
  retryAfter?: number;
  /** Extra response headers (such as Allow on 405). */
  headers?: Record<string, string>;
  /** A machine-readable cause within the code (the analyzer's failure reason on a 422). */
  reason?: string;
  cause?: unknown;
}

export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  readonly errors?: FieldErrors;
  readonly retryAfter?: number;
  readonly headers?: Record<string, string>;
  readonly reason?: string;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.errors = options.errors;
    this.retryAfter = options.retryAfter;
    this.headers = options.headers;
    this.reason = options.reason;
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

/** A 422 for one field; `reason` names the cause for clients that branch on it. */
export function validationError(field: string, message: string, reason?: string): AppError {
  return new AppError('VALIDATION_FAILED', message, { errors: { [field]: [message] }, reason });
}

export function notFound(what = 'Resource'): AppError {
  return new AppError('NOT_FOUND', `${what} not found.`);
}

export function httpStatusOf(code: ErrorCode): number {
  return errorStatus[code];
}
