import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiKey } from '../src/entities/api-key.entity.ts';
import type { Services } from '../src/services.ts';

/** Long-lived things a request may use; defined beside `openServices` in src/services.ts. */
export type { Services };

/** What a procedure may know about the request: transport-neutral, no Koa in it. */
export interface RequestInfo {
  requestId: string;
  ip: string;
  /**
   * The route that answered, as its pattern (`/api/v1/siteverify`, `/trpc` for every tRPC
   * call), never the raw path: limits counted per route key on it.
   */
  route: string;
  /** scheme://host of the request, for absolute links in responses. */
  baseUrl?: string;
  authorization?: string;
  origin?: string;
  referer?: string;
  userAgent?: string;
  acceptLanguage?: string;
  /** The browser's Sec-Fetch-Site: same-origin requests carry no Origin header. */
  secFetchSite?: string;
  /** Sec-CH-UA and Sec-CH-UA-Platform, as sent (the score compares them with the page's report). */
  clientHints?: { ua?: string; platform?: string };
  /** The request came over TLS or to a loopback host (where browsers send client hints). */
  secureTransport?: boolean;
  /**
   * Aborts when the client goes away before its answer is written (its connection closed):
   * long work done for the request (an analysis) stops and frees what it holds.
   */
  signal?: AbortSignal;
}

/**
 * The inner context every procedure receives; the facade builds it from a Koa request
 * (`contextFromKoa`).
 */
export interface InnerContext extends Services {
  em: EntityManager;
  request: RequestInfo;
  /** Set when the caller has already been authenticated (the facade does it for rate limits). */
  apiKey?: ApiKey;
}
