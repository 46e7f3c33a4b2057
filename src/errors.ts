/**
 * The closed set of failures the service reports, in one table keyed by the stable code
 * clients match on: each code's HTTP status, the message a person sees when the thrower gives
 * none, and what it means (docs/api.md's table and the OpenAPI document are made from it).
 * Procedures and src/ functions throw `new AppError(code, message?, options)`; the facade turns
 * it into `{code, message, status, errors?}` in one place (facade/errors.ts) and the tRPC layer
 * picks tRPC's code for the status (routers/trpc.ts). A new failure is one entry here.
 *
 * `generic` marks the one code a bare status stands for: what a library's HTTP error (co-body,
 * Koa) with that status becomes (`codeForStatus`).
 */
export const errorCodes = {
  ERR_BAD_REQUEST: {
    status: 400,
    generic: true,
    message: 'Malformed request body.',
    description: 'The request or its body could not be parsed.',
  },
  ERR_UNAUTHORIZED: {
    status: 401,
    generic: true,
    message: 'Unauthenticated.',
    description: 'Credentials are missing or not valid for this route.',
  },
  ERR_API_KEY_MISSING: {
    status: 401,
    message: 'Missing API key.',
    description: 'No `Authorization: Bearer <API key>` header.',
  },
  ERR_API_KEY_INVALID: {
    status: 401,
    message: 'Invalid or revoked API key.',
    description: 'The API key is malformed, unknown or revoked.',
  },
  ERR_SESSION_INVALID: {
    status: 401,
    message: 'Sign in again.',
    description: 'The console session is missing, expired, or its API key was revoked: sign in again.',
  },
  ERR_PRIVATE_TOKEN: {
    status: 401,
    message: 'Send a Private Access Token for one of the challenges in WWW-Authenticate.',
    description:
      'No valid Private Access Token for this challenge (missing, malformed, of an unknown issuer or another challenge, or already redeemed); `WWW-Authenticate` carries the challenges.',
  },
  ERR_FORBIDDEN: { status: 403, generic: true, message: 'Forbidden.', description: 'The caller may not do this.' },
  ERR_CSRF: {
    status: 403,
    message: 'Sign in from the console’s own page.',
    description: 'A console change without the session’s `X-CSRF-Token` header, or from another origin.',
  },
  ERR_KEY_CONFIRMATION_REQUIRED: {
    status: 403,
    message: 'Type your API key again to confirm this change.',
    description:
      'A console change that mints or changes a credential (API keys, site secrets, webhooks) without the API key typed again in `X-Confirm-Key`.',
  },
  ERR_KEY_CONFIRMATION_INVALID: {
    status: 403,
    message: 'That is not an active API key of this account.',
    description:
      "The key in `X-Confirm-Key` is not an active API key of the console session's account (unknown, revoked or another account's).",
  },
  ERR_ORIGIN_NOT_ALLOWED: {
    status: 403,
    message: 'The origin is not registered for this sitekey.',
    description: 'A browser route called without an Origin registered for the sitekey.',
  },
  ERR_NOT_FOUND: {
    status: 404,
    generic: true,
    message: 'Not found.',
    description: 'No such route or resource (or not yours).',
  },
  ERR_METHOD_NOT_ALLOWED: {
    status: 405,
    generic: true,
    message: 'Method not allowed.',
    description: 'The route exists, not with this method; see `Allow`.',
  },
  ERR_REQUEST_TIMEOUT: {
    status: 408,
    generic: true,
    message: 'Request timeout.',
    description: 'The request (headers or body) did not arrive in time.',
  },
  ERR_PAYLOAD_TOO_LARGE: {
    status: 413,
    generic: true,
    message: 'Request body too large.',
    description: 'The body is larger than `BODY_LIMIT_BYTES`.',
  },
  ERR_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    generic: true,
    message: 'Unsupported content type.',
    description: 'The body is neither JSON nor `application/x-www-form-urlencoded`.',
  },
  ERR_VALIDATION: {
    status: 422,
    generic: true,
    message: 'The input is not valid.',
    description: 'The input is not valid; `errors` lists the fields.',
  },
  ERR_ANALYSIS_FAILED: {
    status: 422,
    message: 'The page could not be analysed.',
    description: 'The page could not be analysed (DNS, refused, timeout, TLS, not HTML, forbidden address).',
  },
  ERR_AUDIT_LIMIT: {
    status: 422,
    message: 'The account has too many audits.',
    description: 'The account has AUDIT_MAX_PER_ACCOUNT audits already; delete one first.',
  },
  ERR_SCHEDULE_TOO_FREQUENT: {
    status: 422,
    message: 'The schedule runs too often.',
    description: 'The schedule would run more often than once every AUDIT_MIN_INTERVAL seconds.',
  },
  ERR_WEBHOOK_LIMIT: {
    status: 422,
    message: 'The account has too many webhooks.',
    description: 'The account has WEBHOOK_MAX_PER_ACCOUNT webhooks already; delete one first.',
  },
  ERR_RATE_LIMITED: {
    status: 429,
    generic: true,
    message: 'Too many requests.',
    description: 'Too many requests; see `Retry-After`.',
  },
  ERR_AUDIT_PAGE_BUDGET: {
    status: 429,
    message: "The account's daily audit page budget is spent.",
    description: "The account's daily audit page budget (AUDIT_DAILY_PAGES) is spent; see `Retry-After` (00:00 UTC).",
  },
  ERR_HEADERS_TOO_LARGE: {
    status: 431,
    generic: true,
    message: 'Request headers too large.',
    description: 'The request headers are too large.',
  },
  ERR_INTERNAL: {
    status: 500,
    generic: true,
    message: 'Internal server error.',
    description: 'An unexpected failure; the response tells nothing more.',
  },
  ERR_UNAVAILABLE: {
    status: 503,
    generic: true,
    message: 'A dependency is unavailable; try again shortly.',
    description: 'A dependency is unavailable; retry after `Retry-After`.',
  },
  ERR_ANALYZER_BUSY: {
    status: 503,
    message: 'The analyzer is busy; try again shortly.',
    description: 'All analysis slots and the queue are busy; see `Retry-After`.',
  },
  ERR_ANALYZER_KEY_BUSY: {
    status: 503,
    message: "This API key's share of the analyzer is taken.",
    description:
      "This API key's own share of the analyzer is taken (ANALYZER_KEY_CONCURRENCY running on all instances together, ANALYZER_KEY_QUEUE waiting, or no slot freed within ANALYZER_KEY_WAIT_MS); see `Retry-After`.",
  },
  ERR_NOT_READY: { status: 503, message: 'Not ready.', description: '`/readyz`: the database or the store is down.' },
} as const satisfies Record<string, ErrorEntry>;

interface ErrorEntry {
  status: number;
  /** The code a library's bare HTTP error of this status becomes; one per status. */
  generic?: true;
  /** Shown when the thrower gives no message of its own. */
  message: string;
  description: string;
}

/** A stable error code as sent to clients, such as `ERR_NOT_FOUND`. */
export type PublicErrorCode = keyof typeof errorCodes;

/** The codes documented with an HTTP status, such as `CodeWithStatus<422>`. */
export type CodeWithStatus<S extends number> = {
  [C in PublicErrorCode]: (typeof errorCodes)[C]['status'] extends S ? C : never;
}[PublicErrorCode];

const genericByStatus = new Map<number, PublicErrorCode>();
for (const [code, entry] of Object.entries(errorCodes) as Array<[PublicErrorCode, ErrorEntry]>) {
  if (entry.generic) genericByStatus.set(entry.status, code);
}

/** The generic code of an HTTP status a library put on its error (413 is `ERR_PAYLOAD_TOO_LARGE`). */
export function codeForStatus(status: number): PublicErrorCode | undefined {
  return genericByStatus.get(status);
}

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

/** A failure with a stable public code; its HTTP status is the code's (`errorCodes`). */
export class AppError extends Error {
  override name = 'AppError';
  /** The stable public code clients see and match on, such as `ERR_RATE_LIMITED`. */
  readonly code: PublicErrorCode;
  readonly errors?: FieldErrors;
  readonly retryAfter?: number;
  readonly headers?: Record<string, string>;
  readonly reason?: string;

  constructor(code: PublicErrorCode, message: string = errorCodes[code].message, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.errors = options.errors;
    this.retryAfter = options.retryAfter;
    this.headers = options.headers;
    this.reason = options.reason;
  }

  get status(): number {
    return errorCodes[this.code].status;
  }
}

/**
 * A 422 for one field; `code` names the failure when it is more than bad input, `reason` a
 * machine-readable cause within it (the analyzer's failure reason).
 */
export function validationError(
  field: string,
  message: string,
  options: { code?: CodeWithStatus<422>; reason?: string } = {},
): AppError {
  const { code = 'ERR_VALIDATION', reason } = options;
  return new AppError(code, message, { errors: { [field]: [message] }, reason });
}

export function notFound(what = 'Resource'): AppError {
  return new AppError('ERR_NOT_FOUND', `${what} not found.`);
}
