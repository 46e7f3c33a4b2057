import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { Stores } from './stores/index.ts';

/** Where a store failure happened: one label value per store of `Stores`. */
export type StoreName = 'challenges' | 'spent_tokens' | 'counters' | 'rate_limit';

/**
 * The service's Prometheus metrics on a registry of its own (never prom-client's global
 * one), so several app instances, as tests make them, never collide. Label values are
 * bounded sets: route patterns, error codes, limit names, store names.
 */
export interface Metrics {
  readonly registry: Registry;
  /** `http_requests_total` and `http_request_duration_seconds`, labelled {method, route, status}; `status` is the code sent, or `aborted`. */
  observeRequest(labels: { method: string; route: string; status: number | string }, seconds: number): void;
  /** Counts one siteverify verdict by `success` or its first error code; returns the verdict. */
  countVerdict<V extends { success: boolean; 'error-codes': readonly string[] }>(verdict: V): V;
  /** One request refused by the rate limit named `limit`. */
  countRateLimitRejection(limit: string): void;
  /** One analysis that ran, by outcome (`ok` or the analyzer's failure reason). */
  observeAnalysis(outcome: string, seconds: number): void;
  /** One failed call to a store (Redis unreachable, timed out, ...). */
  countStoreError(store: StoreName): void;
  /**
   * One gateway forward-auth decision, by outcome (pass, challenge, refuse, deny, unknown) and
   * the rule that decided (the site owner's rule names, `clearance`, `default`, `score`).
   */
  countGatewayCheck(outcome: string, rule: string): void;
}

export function createMetrics(opts: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to finishing its response, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const verdicts = new Counter({
    name: 'siteverify_verdicts_total',
    help: 'Siteverify verdicts, by result: "success" or the first error code.',
    labelNames: ['result'] as const,
    registers,
  });
  const rejections = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests refused by a rate limit, by limit name.',
    labelNames: ['limit'] as const,
    registers,
  });
  const analyses = new Histogram({
    name: 'analyzer_duration_seconds',
    help: 'Duration of page analyses (queue wait excluded), by outcome: "ok" or the failure reason.',
    labelNames: ['outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 60],
    registers,
  });
  const storeErrors = new Counter({
    name: 'store_errors_total',
    help: 'Failed calls to the shared stores (Redis or memory), by store.',
    labelNames: ['store'] as const,
    registers,
  });

  const gatewayChecks = new Counter({
    name: 'gateway_checks_total',
    help: 'Gateway forward-auth decisions, by outcome and deciding rule.',
    labelNames: ['outcome', 'rule'] as const,
    registers,
  });
  // By outcome, then rule: a check finds its series without building a key.
  const gatewaySeries = new Map<string, Map<string, { inc(): void }>>();
  let gatewaySeriesCount = 0;

  // prom-client hashes a label object on every call; the label sets are few (route patterns,
  // statuses, verdict codes), so each one's bound child is kept and reused.
  const requestSeries = new Map<string, { count: { inc(): void }; time: { observe(v: number): void } }>();
  const verdictSeries = new Map<string, { inc(): void }>();

  return {
    registry,
    observeRequest({ method, route, status }, seconds) {
      const key = `${method} ${status} ${route}`;
      let series = requestSeries.get(key);
      if (!series) {
        const labels = { method, route, status: String(status) };
        series = { count: requests.labels(labels), time: duration.labels(labels) };
        requestSeries.set(key, series);
      }
      series.count.inc();
      series.time.observe(seconds);
    },
    countVerdict(verdict) {
      const result = verdict.success ? 'success' : (verdict['error-codes'][0] ?? 'unknown');
      let series = verdictSeries.get(result);
      if (!series) verdictSeries.set(result, (series = verdicts.labels({ result })));
      series.inc();
      return verdict;
    },
    countRateLimitRejection(limit) {
      rejections.inc({ limit });
    },
    observeAnalysis(outcome, seconds) {
      analyses.observe({ outcome }, seconds);
    },
    countStoreError(store) {
      storeErrors.inc({ store });
    },
    countGatewayCheck(outcome, rule) {
      let byRule = gatewaySeries.get(outcome);
      if (!byRule) gatewaySeries.set(outcome, (byRule = new Map<string, { inc(): void }>()));
      let series = byRule.get(rule);
      // Past 1000 series (rule names are the site owners'), further rules count as `other`.
      if (!series && gatewaySeriesCount >= 1000) return gatewayChecks.inc({ outcome, rule: 'other' });
      if (!series) {
        byRule.set(rule, (series = gatewayChecks.labels({ outcome, rule: rule.slice(0, 100) })));
        gatewaySeriesCount++;
      }
      series.inc();
    },
  };
}

/**
 * The same stores, with every failed call of the challenge, spent-token and counter stores
 * counted in `store_errors_total` (the error still propagates unchanged). Rate-limit store
 * failures are counted where koa-ratelimit's driver is called (facade/rate-limit.ts).
 */
export function instrumentStores(stores: Stores, metrics: Metrics): Stores {
  return {
    ...stores,
    ping: () => stores.ping(),
    close: () => stores.close(),
    challenges: countFailures(stores.challenges, 'challenges', metrics),
    spentTokens: countFailures(stores.spentTokens, 'spent_tokens', metrics),
    counters: countFailures(stores.counters, 'counters', metrics),
  };
}

/**
 * `store` behind a proxy that counts each failure of its methods, thrown or rejected, under
 * `name` and passes it on unchanged. Each method's counting wrapper is made once and kept
 * (keyed by the function, so a method replaced on the store gets a wrapper of its own).
 */
function countFailures<T extends object>(store: T, name: StoreName, metrics: Metrics): T {
  const wrappers = new WeakMap<(...args: unknown[]) => unknown, (...args: unknown[]) => unknown>();
  const wrap =
    (method: (...args: unknown[]) => unknown) =>
    (...args: unknown[]) => {
      let result: unknown;
      try {
        result = method.apply(store, args);
      } catch (err) {
        metrics.countStoreError(name);
        throw err;
      }
      if (result instanceof Promise) {
        return result.catch((err: unknown) => {
          metrics.countStoreError(name);
          throw err;
        });
      }
      return result;
    };
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      let wrapper = wrappers.get(method);
      if (!wrapper) wrappers.set(method, (wrapper = wrap(method)));
      return wrapper;
    },
  });
}
