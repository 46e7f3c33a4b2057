/**
 * The closed set of failures the service reports. Procedures and src/ functions throw
 * `AppError(kind, message, {code?})`: the kind picks the HTTP status (one table,
 * `errorStatus`), the code is the stable name clients match on (`errorCodes`; the kind's
 * default when not given). The facade turns it into `{code, message, status, errors?}` in
 * one place (facade/errors.ts).
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

/** The kind of a failure; it decides the HTTP status. */
export type ErrorKind = keyof typeof errorStatus;

/**
 * Every code an error body may carry, with its status and what it means. Codes are stable:
 * a client may match on them; messages are for people and may change. docs/api.md's table of
 * error codes and the OpenAPI document are made from this list.
 */
export const errorCodes = {
  ERR_BAD_REQUEST: { status: 400, description: 'The request or its body could not be parsed.' },
  ERR_UNAUTHORIZED: { status: 401, description: 'Credentials are missing or not valid for this route.' },
  ERR_API_KEY_MISSING: { status: 401, description: 'No `Authorization: Bearer <API key>` header.' },
  ERR_API_KEY_INVALID: { status: 401, description: 'The API key is malformed, unknown or revoked.' },
  ERR_SESSION_INVALID: {
    status: 401,
    description: 'The console session is missing, expired, or its API key was revoked: sign in again.',
  },
  ERR_PRIVATE_TOKEN: {
    status: 401,
    description:
      'No valid Private Access Token for this challenge (missing, malformed, of an unknown issuer or another challenge, or already redeemed); `WWW-Authenticate` carries the challenges.',
  },
  ERR_FORBIDDEN: { status: 403, description: 'The caller may not do this.' },
  ERR_CSRF: {
    status: 403,
    description: 'A console change without the session’s `X-CSRF-Token` header, or from another origin.',
  },
  ERR_KEY_CONFIRMATION_REQUIRED: {
    status: 403,
    description:
      'A console change that mints or changes a credential (API keys, site secrets, webhooks) without the API key typed again in `X-Confirm-Key`.',
  },
  ERR_KEY_CONFIRMATION_INVALID: {
    status: 403,
    description:
      "The key in `X-Confirm-Key` is not an active API key of the console session's account (unknown, revoked or another account's).",
  },
  ERR_ORIGIN_NOT_ALLOWED: {
    status: 403,
    description: 'A browser route called without an Origin registered for the sitekey.',
  },
  ERR_NOT_FOUND: { status: 404, description: 'No such route or resource (or not yours).' },
  ERR_METHOD_NOT_ALLOWED: { status: 405, description: 'The route exists, not with this method; see `Allow`.' },
  ERR_REQUEST_TIMEOUT: { status: 408, description: 'The request (headers or body) did not arrive in time.' },
  ERR_PAYLOAD_TOO_LARGE: { status: 413, description: 'The body is larger than `BODY_LIMIT_BYTES`.' },
  ERR_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    description: 'The body is neither JSON nor `application/x-www-form-urlencoded`.',
  },
  ERR_VALIDATION: { status: 422, description: 'The input is not valid; `errors` lists the fields.' },
  ERR_ANALYSIS_FAILED: {
    status: 422,
    description: 'The page could not be analysed (DNS, refused, timeout, TLS, not HTML, forbidden address).',
  },
  ERR_AUDIT_LIMIT: {
    status: 422,
    description: 'The account has AUDIT_MAX_PER_ACCOUNT audits already; delete one first.',
  },
  ERR_SCHEDULE_TOO_FREQUENT: {
    status: 422,
    description: 'The schedule would run more often than once every AUDIT_MIN_INTERVAL seconds.',
  },
  ERR_WEBHOOK_LIMIT: {
    status: 422,
    description: 'The account has WEBHOOK_MAX_PER_ACCOUNT webhooks already; delete one first.',
  },
  ERR_RATE_LIMITED: { status: 429, description: 'Too many requests; see `Retry-After`.' },
  ERR_AUDIT_PAGE_BUDGET: {
    status: 429,
    description: "The account's daily audit page budget (AUDIT_DAILY_PAGES) is spent; see `Retry-After` (00:00 UTC).",
  },
  ERR_HEADERS_TOO_LARGE: { status: 431, description: 'The request headers are too large.' },
  ERR_INTERNAL: { status: 500, description: 'An unexpected failure; the response tells nothing more.' },
  ERR_UNAVAILABLE: { status: 503, description: 'A dependency is unavailable; retry after `Retry-After`.' },
  ERR_ANALYZER_BUSY: { status: 503, description: 'All analysis slots and the queue are busy; see `Retry-After`.' },
  ERR_ANALYZER_KEY_BUSY: {
    status: 503,
    description:
      "This API key's own share of the analyzer is taken (ANALYZER_KEY_CONCURRENCY running on all instances together, ANALYZER_KEY_QUEUE waiting, or no slot freed within ANALYZER_KEY_WAIT_MS); see `Retry-After`.",
  },
  ERR_NOT_READY: { status: 503, description: '`/readyz`: the database or the store is down.' },
} as const satisfies Record<string, { status: number; description: string }>;

/** A stable error code as sent to clients, such as `ERR_NOT_FOUND`. */
export type PublicErrorCode = keyof typeof errorCodes;

/** The codes that may accompany a kind: those documented with the kind's status. */
export type CodeOf<K extends ErrorKind> = {
  [C in PublicErrorCode]: (typeof errorCodes)[C]['status'] extends (typeof errorStatus)[K] ? C : never;
}[PublicErrorCode];

/** The code of a failure that names no more specific one. */
export const defaultCodeOf: { [K in ErrorKind]: CodeOf<K> } = {
  BAD_REQUEST: 'ERR_BAD_REQUEST',
  UNAUTHORIZED: 'ERR_UNAUTHORIZED',
  FORBIDDEN: 'ERR_FORBIDDEN',
  NOT_FOUND: 'ERR_NOT_FOUND',
  METHOD_NOT_ALLOWED: 'ERR_METHOD_NOT_ALLOWED',
  PAYLOAD_TOO_LARGE: 'ERR_PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'ERR_UNSUPPORTED_MEDIA_TYPE',
  VALIDATION_FAILED: 'ERR_VALIDATION',
  RATE_LIMITED: 'ERR_RATE_LIMITED',
  INTERNAL: 'ERR_INTERNAL',
  UNAVAILABLE: 'ERR_UNAVAILABLE',
};

/** Field name to its messages, as in Laravel's validation errors. */
export type FieldErrors = Record<string, string[]>;

export interface AppErrorOptions {
  /**
   * The stable code clients see; the kind's default (`defaultCodeOf`) when absent, or when
   * the code is documented with another status than the kind's.
   */
  code?: PublicErrorCode;
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
  /** The stable public code clients see and match on, such as `ERR_RATE_LIMITED`. */
  readonly code: PublicErrorCode;
  /** The kind of failure; it decides the HTTP status. */
  readonly kind: ErrorKind;
  readonly errors?: FieldErrors;
  readonly retryAfter?: number;
  readonly headers?: Record<string, string>;
  readonly reason?: string;

  constructor(kind: ErrorKind, message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.kind = kind;
    const code = options.code;
    this.code = code && errorCodes[code].status === errorStatus[kind] ? code : defaultCodeOf[kind];
    this.errors = options.errors;
    this.retryAfter = options.retryAfter;
    this.headers = options.headers;
    this.reason = options.reason;
  }

  get status(): number {
    return errorStatus[this.kind];
  }
}

/**
 * A 422 for one field; `code` names the failure when it is more than bad input, `reason` a
 * machine-readable cause within it (the analyzer's failure reason).
 */
export function validationError(
  field: string,
  message: string,
  options: { code?: CodeOf<'VALIDATION_FAILED'>; reason?: string } = {},
): AppError {
  const { code = 'ERR_VALIDATION', reason } = options;
  return new AppError('VALIDATION_FAILED', message, { code, errors: { [field]: [message] }, reason });
}

export function notFound(what = 'Resource'): AppError {
  return new AppError('NOT_FOUND', `${what} not found.`);
}
