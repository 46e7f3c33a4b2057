/**
 * Analyzer options: network limits, check thresholds and scoring weights, with defaults.
 */
import type { CheckPool } from './check-pool.ts';
import { defaultResolverSettings, type LookupFunction, type ResolverSettings } from './resolver.ts';
import { defaultThresholds, defaultUserAgent, type Thresholds } from './thresholds.ts';

/** Everything `analyzeUrl` can be told. Build one with {@link defaultAnalyzerOptions}. */
export interface AnalyzerOptions {
  /** Allow fetching loopback, private, link-local, CGNAT and reserved addresses (SSRF guard off). Default false. */
  allowPrivate: boolean;
  /** TCP + TLS connect timeout per connection, ms. Default 5000. */
  connectTimeoutMs: number;
  /**
   * Wall-clock deadline of the whole analysis, ms: page fetch (redirects, body, decoding),
   * auxiliary fetches and checks. Default 15000. Past it every fetch and decoder is stopped
   * and the analysis fails with `timeout`. The auxiliary fetches (robots.txt, sitemap, 404
   * probe, http:// variant) end early enough to leave the checks a share of it.
   */
  totalTimeoutMs: number;
  /**
   * CPU budget of the checks of one page (parse included), ms, counted from the moment a
   * worker starts them. Default 5000. Past it the worker is terminated and the analysis
   * fails with `check_budget`. Applies when `checkPool` is set.
   */
  checkBudgetMs: number;
  /**
   * The worker pool the checks run in. Without one they run on the calling thread, unbounded:
   * for unit tests and library use only; the service always gives one.
   */
  checkPool?: CheckPool;
  /** Largest body read, compressed or decoded, bytes. Default 5 MiB. */
  maxBodyBytes: number;
  /** Most redirects followed. Default 10. */
  maxRedirects: number;
  /** User-Agent header; its product token (e.g. "WebsiteAnalyzer") is also the robots.txt agent. */
  userAgent: string;
  /** Check thresholds; see {@link Thresholds}. */
  thresholds: Thresholds;
  /** Score weight of a check by importance. Defaults high=10, medium=5, low=0, as phpRank's (see scoring.ts). */
  weights: Record<'high' | 'medium' | 'low', number>;
  /**
   * DNS resolver, injectable for tests. Defaults to the analysis' own c-ares resolver (`resolver`).
   * Special-use names never reach it (RFC 6761): `*.invalid` fails and `localhost`/`*.localhost`
   * are loopback.
   */
  lookup?: LookupFunction;
  /**
   * How names are resolved when `lookup` is not given: c-ares (never the thread pool), with
   * per-query timeout and tries, and caps on the names per analysis and lookups in flight.
   */
  resolver: ResolverSettings;
  /**
   * Replaces the address policy entirely when set: an address is connected to if and only if
   * this returns true (`allowPrivate` is then ignored). Meant for tests and special deployments.
   */
  isAllowedAddress?: (address: string) => boolean;
}

/** Overrides accepted by {@link defaultAnalyzerOptions}: thresholds and weights may be partial. */
export type AnalyzerOptionsOverrides = Partial<Omit<AnalyzerOptions, 'thresholds' | 'weights'>> & {
  thresholds?: Partial<Thresholds>;
  weights?: Partial<AnalyzerOptions['weights']>;
};

/**
 * Complete options from defaults plus `overrides`. `thresholds` and `weights` are merged key
 * by key, so `{ thresholds: { minWords: 300 } }` keeps the other thresholds.
 */
export function defaultAnalyzerOptions(overrides: AnalyzerOptionsOverrides = {}): AnalyzerOptions {
  const { thresholds, weights, ...rest } = overrides;
  const base: AnalyzerOptions = {
    allowPrivate: false,
    connectTimeoutMs: 5000,
    totalTimeoutMs: 15000,
    checkBudgetMs: 5000,
    maxBodyBytes: 5 * 1024 * 1024,
    maxRedirects: 10,
    userAgent: defaultUserAgent,
    resolver: { ...defaultResolverSettings },
    thresholds: { ...defaultThresholds },
    weights: { high: 10, medium: 5, low: 0 },
  };
  for (const [key, value] of Object.entries(rest)) {
    if (value !== undefined) (base as unknown as Record<string, unknown>)[key] = value;
  }
  return {
    ...base,
    thresholds: { ...base.thresholds, ...stripUndefined(thresholds) },
    weights: { ...base.weights, ...stripUndefined(weights) },
  };
}

function stripUndefined<T extends object>(value: T | undefined): Partial<T> {
  if (!value) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
