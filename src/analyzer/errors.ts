/**
 * Why an analysis could not run, and the mapping from low-level network errors to it.
 */

/** The closed set of reasons `analyzeUrl` fails. */
export type AnalyzeFailure =
  | 'invalid_url'
  | 'forbidden_address'
  | 'dns'
  | 'refused'
  | 'timeout'
  | 'tls'
  | 'not_html'
  | 'too_large'
  | 'too_many_redirects'
  | 'http_error'
  | 'network'
  | 'check_budget'
  | 'render_limit';

/** A failed analysis. `message` is a human sentence naming the cause. */
export class AnalyzeError extends Error {
  override name = 'AnalyzeError';
  /** Machine-readable cause. */
  readonly reason: AnalyzeFailure;

  constructor(reason: AnalyzeFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

const dnsCodes = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EAI_FAIL',
  'EAI_NODATA',
  'ENODATA',
  'ESERVFAIL',
  'ENONAME',
]);
const timeoutCodes = new Set([
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
const tlsCodes = new Set([
  'EPROTO',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'HOSTNAME_MISMATCH',
]);

function errorCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET' && code !== 'UND_ERR') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Map any error thrown while fetching `url` to an {@link AnalyzeError}. AnalyzeErrors pass
 * through unchanged; the caller handles aborts of its own signal before calling this.
 */
export function toAnalyzeError(err: unknown, url: string): AnalyzeError {
  if (err instanceof AnalyzeError) return err;
  const code = errorCode(err) ?? '';
  const host = safeHost(url);
  if (dnsCodes.has(code)) {
    return new AnalyzeError('dns', `The host name ${host} could not be resolved.`, { cause: err });
  }
  if (code === 'ECONNREFUSED') {
    return new AnalyzeError('refused', `The server at ${host} refused the connection.`, { cause: err });
  }
  if (timeoutCodes.has(code)) {
    return new AnalyzeError('timeout', `The server at ${host} did not respond in time.`, { cause: err });
  }
  if (
    tlsCodes.has(code) ||
    code.startsWith('ERR_TLS_') ||
    code.startsWith('ERR_SSL_') ||
    code.startsWith('ERR_OSSL_')
  ) {
    return new AnalyzeError('tls', `The secure connection to ${host} failed (${code}).`, { cause: err });
  }
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' || code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR') {
    return new AnalyzeError('network', `The response from ${host} was malformed or cut short (${code}).`, {
      cause: err,
    });
  }
  const detail = code ? ` (${code})` : '';
  return new AnalyzeError('network', `The connection to ${host} failed${detail}.`, { cause: err });
}

/** A timeout AnalyzeError for `url`. */
export function timeoutError(url: string, ms: number): AnalyzeError {
  return new AnalyzeError('timeout', `The page at ${safeHost(url)} did not load within ${ms} ms.`);
}

/** The AnalyzeError of an analysis that missed its wall-clock deadline (`ANALYZER_TIMEOUT_MS`). */
export function deadlineError(url: string, ms: number): AnalyzeError {
  return new AnalyzeError('timeout', `The analysis of ${safeHost(url)} did not finish within ${ms} ms.`);
}

/** The AnalyzeError of an analysis whose checks ran past their CPU budget (`ANALYZER_CHECK_BUDGET_MS`). */
export function checkBudgetError(ms: number): AnalyzeError {
  return new AnalyzeError('check_budget', `The page's checks did not finish within their ${ms} ms budget.`);
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
