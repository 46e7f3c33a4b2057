import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../src/config.ts';
import type { ApiKey } from '../src/entities/api-key.entity.ts';
import type { Stores } from '../src/stores/index.ts';
import type { ReportAnalyzer } from '../src/reports/analysis.ts';
import type { Metrics } from '../src/metrics.ts';

/** Long-lived things a request may use; built once at start (src/app-services.ts). */
export interface Services {
  config: Config;
  orm: MikroORM;
  stores: Stores;
  log: Logger;
  analyzer: ReportAnalyzer;
  /** Prometheus metrics of this instance (src/metrics.ts). */
  metrics: Metrics;
}

/** What a procedure may know about the request: transport-neutral, no Koa in it. */
export interface RequestInfo {
  requestId: string;
  ip: string;
  /** scheme://host of the request, for absolute links in responses. */
  baseUrl?: string;
  authorization?: string;
  origin?: string;
  referer?: string;
  userAgent?: string;
  acceptLanguage?: string;
  /** The browser's Sec-Fetch-Site: same-origin requests carry no Origin header. */
  secFetchSite?: string;
}

/**
 * The inner context every procedure receives. Tests build it directly with
 * `createInnerContext`; the facade builds it from a Koa request.
 */
export interface InnerContext extends Services {
  em: EntityManager;
  request: RequestInfo;
  /** Set when the caller has already been authenticated (the facade does it for rate limits). */
  apiKey?: ApiKey;
}

export function createInnerContext(
  services: Services,
  request: Partial<RequestInfo> = {},
  em: EntityManager = services.orm.em.fork(),
): InnerContext {
  return {
    ...services,
    em,
    request: { requestId: request.requestId ?? 'internal', ip: request.ip ?? '127.0.0.1', ...request },
  };
}
