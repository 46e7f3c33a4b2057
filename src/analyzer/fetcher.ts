/**
 * The HTTP fetcher of one analysis: manual redirects with a guard check on every hop,
 * timeouts, body cap and decoding, timings. One Fetcher owns one pinned undici Agent.
 */
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { AddressGuard, parseTargetUrl, type TargetUrl } from './address-guard.ts';
import { acceptEncoding, readBody, type ReadBody } from './body.ts';
import { createPinnedAgent, type PinnedAgent } from './dispatcher.ts';
import { AnalyzeError, timeoutError, toAnalyzeError } from './errors.ts';
import type { AnalyzerOptions } from './options.ts';

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/** How one fetch behaves. */
export interface FetchSpec {
  /** Follow redirects up to `maxRedirects` (default true). */
  followRedirects?: boolean;
  /** Body cap; defaults to the analyzer's `maxBodyBytes`. */
  maxBytes?: number;
  /** Return a truncated body at the cap instead of failing with `too_large`. */
  truncate?: boolean;
  /** Fail with `not_html` unless the final response is HTML. */
  requireHtml?: boolean;
  /** Fail with `http_error` when the final status is 400 or above. */
  requireSuccess?: boolean;
  /** Skip reading the body (it is discarded). */
  skipBody?: boolean;
  /** Time budget of this fetch, ms; defaults to the analyzer's `totalTimeoutMs`. */
  timeoutMs?: number;
}

/** A completed fetch. */
export interface FetchedResponse {
  /** The URL that produced this response (after redirects). */
  url: URL;
  /** URLs that answered with a redirect, in order. */
  redirects: string[];
  status: number;
  /** Lowercased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** "2.0" or "1.1". */
  httpVersion: string;
  body?: ReadBody;
  /** From the first request to the final response's headers, ms. */
  ttfbMs: number;
  /** From the first request to the end of the body, ms. */
  totalMs: number;
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** True for text/html and application/xhtml+xml. */
export function isHtmlContentType(contentType: string): boolean {
  const mime = contentType.split(';')[0].trim().toLowerCase();
  return mime === 'text/html' || mime === 'application/xhtml+xml';
}

/** Fetches for one analysis; call {@link close} when done. */
export class Fetcher {
  readonly #options: AnalyzerOptions;
  readonly #signal?: AbortSignal;
  readonly #guard: AddressGuard;
  readonly #pinned: PinnedAgent;

  constructor(options: AnalyzerOptions, signal?: AbortSignal) {
    this.#options = options;
    this.#signal = signal;
    this.#guard = new AddressGuard(options, signal);
    this.#pinned = createPinnedAgent(this.#guard, options);
  }

  /**
   * Fetch `target` under the analyzer's limits. Every hop is re-validated (scheme, length,
   * address) before it is requested. Rejects with {@link AnalyzeError}, or with the
   * caller's abort reason when the caller's signal aborts.
   */
  async fetch(target: string | TargetUrl, spec: FetchSpec = {}): Promise<FetchedResponse> {
    const budgetMs = Math.max(1, Math.round(spec.timeoutMs ?? this.#options.totalTimeoutMs));
    const timeout = AbortSignal.timeout(budgetMs);
    const signal = this.#signal ? AbortSignal.any([this.#signal, timeout]) : timeout;
    const first = typeof target === 'string' ? target : target.href;
    try {
      return await this.#fetch(typeof target === 'string' ? parseTargetUrl(target) : target, spec, signal);
    } catch (err) {
      if (this.#signal?.aborted) throw this.#signal.reason;
      if (timeout.aborted) throw timeoutError(first, budgetMs);
      throw toAnalyzeError(err, first);
    }
  }

  async #fetch(first: TargetUrl, spec: FetchSpec, signal: AbortSignal): Promise<FetchedResponse> {
    const maxBytes = spec.maxBytes ?? this.#options.maxBodyBytes;
    const started = performance.now();
    const redirects: string[] = [];
    let url: URL = first;
    for (;;) {
      await this.#guard.pin(url, signal);
      signal.throwIfAborted();
      const res = await request(url, {
        method: 'GET',
        dispatcher: this.#pinned.agent,
        signal,
        headers: {
          'user-agent': this.#options.userAgent,
          accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8',
          'accept-encoding': acceptEncoding,
          'accept-language': 'en;q=0.9, *;q=0.5',
        },
      });
      const ttfbMs = performance.now() - started;
      const headers = flattenHeaders(res.headers);
      const location = headers['location'];
      if (spec.followRedirects !== false && redirectStatuses.has(res.statusCode) && location) {
        await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        if (redirects.length >= this.#options.maxRedirects) {
          throw new AnalyzeError(
            'too_many_redirects',
            `The page redirected more than ${this.#options.maxRedirects} times.`,
          );
        }
        redirects.push(url.href);
        url = parseTargetUrl(location, url);
        continue;
      }
      const response: FetchedResponse = {
        url,
        redirects,
        status: res.statusCode,
        headers,
        httpVersion: this.#pinned.httpVersionOf(url) ?? '1.1',
        ttfbMs,
        totalMs: ttfbMs,
      };
      const refusal = this.#refusal(response, spec, maxBytes);
      if (refusal || spec.skipBody) {
        await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        if (refusal) throw refusal;
        return response;
      }
      response.body = await readBody(res.body, headers['content-encoding'], {
        maxBytes,
        truncate: spec.truncate ?? false,
        signal,
      });
      response.totalMs = performance.now() - started;
      return response;
    }
  }

  /** An error to fail with before reading the body, if the headers already rule the response out. */
  #refusal(res: FetchedResponse, spec: FetchSpec, maxBytes: number): AnalyzeError | undefined {
    if (spec.requireSuccess && res.status >= 400) {
      return new AnalyzeError('http_error', `The page answered with HTTP status ${res.status}.`);
    }
    const contentType = res.headers['content-type'];
    if (spec.requireHtml && contentType && !isHtmlContentType(contentType)) {
      const mime = contentType.split(';')[0].trim();
      return new AnalyzeError('not_html', `The page is not an HTML document (it is ${mime}).`);
    }
    const length = Number(res.headers['content-length']);
    if (!spec.truncate && Number.isFinite(length) && length > maxBytes) {
      return new AnalyzeError('too_large', `The response is larger than the ${maxBytes}-byte limit.`);
    }
    return undefined;
  }

  /** Close the connections of this analysis. */
  close(): Promise<void> {
    this.#guard.close();
    return this.#pinned.close();
  }
}
