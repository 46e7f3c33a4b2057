import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_REDIS_COMMAND_TIMEOUT_MS } from './stores/redis-watchdog.ts';
import { parsePatIssuers, type PatIssuer } from './captcha/pat-issuers.ts';
import { parseCidrList, type Cidr } from './gateway/networks.ts';

/** Thrown when the environment holds a bad value; `message` is one line naming the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const tokenKey = z
  .string()
  .regex(/^[A-Za-z0-9+/_-]{43}=?$|^[0-9a-fA-F]{64}$/, 'must be 32 bytes as 64 hex characters or base64');

const jsonObject = z.string().transform((text, ctx) => {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, number>;
  } catch {
    // reported below
  }
  ctx.addIssue({ code: 'custom', message: 'must be a JSON object' });
  return z.NEVER;
});

/** Name servers, comma-separated `host` or `host:port`; unset: the system's (resolv.conf). */
const nameServers = z
  .string()
  .max(1024)
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .optional();

/** `v` without trailing slashes (a loop: a regex here could backtrack on long input). */
function withoutTrailingSlashes(v: string): string {
  let end = v.length;
  while (end > 0 && v[end - 1] === '/') end--;
  return v.slice(0, end);
}

function publicUrlOk(text: string): boolean {
  try {
    const url = new URL(text);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      !url.username &&
      !url.password &&
      !url.search &&
      !url.hash &&
      !text.includes('?') &&
      !text.includes('#')
    );
  } catch {
    return false;
  }
}

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  /** How long Redis may leave a command unanswered before the service fails its commands (and reconnects). */
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(DEFAULT_REDIS_COMMAND_TIMEOUT_MS),
  DATA_DIR: z.string().min(1).default('./data'),
  TOKEN_KEY: tokenKey.optional(),
  TRUST_PROXY: booleanFlag.default(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  API_RATE_LIMIT: z.coerce.number().int().min(1).default(240),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).default(30_000),
  ANALYZER_ALLOW_PRIVATE: booleanFlag.default(false),
  ANALYZER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  ANALYZER_QUEUE: z.coerce.number().int().min(0).max(10_000).default(32),
  ANALYZER_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
  ANALYZER_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(5 * 1024 * 1024),
  ANALYZER_CHECK_BUDGET_MS: z.coerce.number().int().min(10).default(5_000),
  /**
   * Name servers the analyzer asks (comma-separated `host` or `host:port`); unset: the
   * system's (resolv.conf). Queries go through c-ares, never libuv's thread pool.
   */
  ANALYZER_DNS_SERVERS: nameServers,
  /** Time one DNS query waits for an answer before it is tried again, ms. */
  ANALYZER_DNS_TIMEOUT_MS: z.coerce.number().int().min(50).max(30_000).default(2_000),
  /** Tries per name server. */
  ANALYZER_DNS_TRIES: z.coerce.number().int().min(1).max(5).default(2),
  /** Most distinct host names one analysis (or one render) may resolve. */
  ANALYZER_MAX_HOSTS: z.coerce.number().int().min(1).max(1000).default(32),
  /** Analyses one API key may have running at once. */
  ANALYZER_KEY_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(2),
  /** Analyses one API key may have waiting for a slot. */
  ANALYZER_KEY_QUEUE: z.coerce.number().int().min(0).max(10_000).default(6),
  /**
   * How long an analysis waits for one of its key's slots while all are held (by its analyses
   * on any instance), ms; then 503 ERR_ANALYZER_KEY_BUSY.
   */
  ANALYZER_KEY_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(15_000),
  /** Renders one API key may have running at once (renders also wait in their own fair queue). */
  ANALYZER_KEY_RENDERS: z.coerce.number().int().min(1).max(32).default(1),
  /**
   * Most runs one report or audit page may ask for (`runs`; docs/audits.md). The runs of one
   * measurement go one after another in one of the account's analysis slots, and each audit
   * page's runs count against AUDIT_DAILY_PAGES.
   */
  ANALYZER_MAX_RUNS: z.coerce.number().int().min(1).max(25).default(9),
  /** JSON object overriding analyzer thresholds, e.g. {"maxLoadTimeMs": 3000}. */
  ANALYZER_THRESHOLDS: jsonObject.optional(),
  /** JSON object overriding importance weights, e.g. {"high": 10, "medium": 5, "low": 2}. */
  ANALYZER_WEIGHTS: jsonObject.optional(),
  /** Render pages in Chromium: never, auto (client-rendered shells, or when asked), always. Unset: auto when Chromium is found, else never. */
  ANALYZER_RENDER: z.enum(['never', 'auto', 'always']).optional(),
  /** Chromium executable for rendering (Debian's package; never a downloaded browser). */
  ANALYZER_CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
  /**
   * Memory the whole browser (all its processes) may use, MiB, enforced by a cgroup of its own
   * (v2 or v1) where one can be made; a page past it fails its render alone (render_limit).
   */
  ANALYZER_RENDER_MEMORY_MB: z.coerce.number().int().min(256).max(65_536).default(1024),
  /** The user Chromium runs as when the service runs as root (its sandbox needs a user that is not root). */
  ANALYZER_CHROMIUM_USER: z
    .string()
    .regex(/^[a-z_][a-z0-9_-]{0,31}$|^\d+$/, 'must be a user name or a numeric uid')
    .default('nobody'),
  /** Browser contexts rendering at once. */
  ANALYZER_RENDER_CONTEXTS: z.coerce.number().int().min(1).max(32).default(2),
  /** Per-page render time limit, ms. */
  ANALYZER_RENDER_TIMEOUT_MS: z.coerce.number().int().min(1000).default(10_000),
  /**
   * Longest wait after a rendered page's load event for it to be quiet, ms (Lighthouse's rule:
   * a second after load, then a second without requests and without long tasks; a quiet page
   * ends there). Lab values see what happens in this window. Capped by ANALYZER_RENDER_TIMEOUT_MS.
   */
  ANALYZER_RENDER_MAX_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  /**
   * User-Agent of rendered pages. Unset: desktop Chrome's for the running Chromium (what
   * Lighthouse's desktop preset sends), so pages serve what visitors get; the analyzer's own
   * name ("WebsiteAnalyzer") is on its raw fetch of every page, robots.txt and the sitemap.
   */
  ANALYZER_RENDER_USER_AGENT: z.string().min(1).max(512).optional(),
  /** V8 heap limit of each page's renderer, MiB. */
  ANALYZER_RENDER_MAX_HEAP_MB: z.coerce.number().int().min(32).max(4096).default(256),
  /** Most bytes one rendered page may load (document and subresources). */
  ANALYZER_RENDER_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(50 * 1024 * 1024),
  /** Password tries on one share page from one address (its /64 for IPv6) per 15 minutes. */
  /**
   * The providers' published test keys (always-pass and always-fail sitekeys and secrets).
   * `off`: they are unknown keys like any other, so a production backend left on a test
   * secret accepts nothing. Left `on` with NODE_ENV=production, the service warns at start.
   */
  TEST_KEYS: z.enum(['on', 'off']).default('on'),
  /**
   * The environment proof's engine (src/captcha/engine-reference.ts): `auto` measures its
   * layouts in the Chromium at ANALYZER_CHROMIUM_PATH when it exists; `never` issues
   * challenges without one (tokens then score at most 0.1 and v2 shows the image).
   */
  CAPTCHA_ENGINE: z.enum(['auto', 'never']).default('auto'),
  /**
   * The address-to-AS dataset the score reads the client's network from (src/net/asn.ts):
   * unset, the `@ip-location-db/asn` package's files; `off`, none (no network counts as
   * hosting); else CSV files of `first,last,asn[,name]`, comma-separated.
   */
  ASN_DATABASE: z.string().min(1).max(4096).optional(),
  /** The hosting and cloud networks' AS numbers (`asn,name` lines); unset, src/net/hosting-asns.csv as shipped. */
  HOSTING_ASNS_FILE: z.string().min(1).max(1024).optional(),
  /**
   * Private Access Token issuers trusted for the attestation route (src/captcha/private-token.ts):
   * `issuer-name=<base64url token-key>`, comma-separated. Unset: no Private Access Tokens.
   */
  PAT_ISSUERS: z
    .string()
    .max(16_384)
    .transform((text, ctx): PatIssuer[] => {
      try {
        return parsePatIssuers(text);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    })
    .default([]),
  /** Only read to warn about test keys left on in production. */
  NODE_ENV: z.string().max(64).optional(),
  /** Password tries on one share page from one address (its /64 for IPv6) per 15 minutes. */
  SHARE_PASSWORD_ATTEMPTS: z.coerce.number().int().min(1).default(10),
  /** Password tries on one share page from all addresses together per 15 minutes (an IPv6 /48 holds 65,536 /64s). */
  SHARE_PASSWORD_REPORT_ATTEMPTS: z.coerce.number().int().min(1).default(100),
  /** How long a console session lasts after sign-in, in hours (docs/console.md). */
  CONSOLE_SESSION_HOURS: z.coerce.number().int().min(1).max(720).default(12),
  /** Console sign-in attempts per client address (its /64 for IPv6) per 15 minutes. */
  CONSOLE_SIGN_IN_ATTEMPTS: z.coerce.number().int().min(1).default(10),
  /** Days of challenge analytics kept in the database (the console's charts); older buckets are deleted. */
  ANALYTICS_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(31),
  /** How often each instance writes its counted challenge events to the database, in ms. */
  ANALYTICS_FLUSH_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /** Serve Prometheus metrics at GET /metrics; when false that path is a 404. */
  METRICS_ENABLED: booleanFlag.default(true),
  /** When set, GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: z.string().min(1).max(512).optional(),
  /**
   * The service's public address (scheme://host[:port][/prefix]) for absolute links in
   * responses (pagination). Unset: links are root-relative. Never taken from request headers.
   */
  PUBLIC_URL: z
    .string()
    .max(512)
    .refine((v) => publicUrlOk(v), 'must be an http(s) URL without credentials, query or fragment')
    .transform(withoutTrailingSlashes)
    .optional(),
  /** Most pages one site audit may cover (a request's `max_pages` is capped by it; docs/audits.md). */
  AUDIT_MAX_PAGES: z.coerce.number().int().min(1).max(100_000).default(500),
  /** Pages of one host analysed at once across every instance (one queue slot each). */
  AUDIT_HOST_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  /** Pause after each page of a host before its slot takes the next one, ms. */
  AUDIT_HOST_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(250),
  /** Audit pages this instance works on at once (they also take analyzer slots, ANALYZER_*). */
  AUDIT_WORKERS: z.coerce.number().int().min(1).max(256).default(4),
  /**
   * Audit pages of one account worked on at once, every instance together (exact: one queue
   * singleton slot each), so one account never holds every AUDIT_WORKERS slot (docs/isolation.md).
   */
  AUDIT_KEY_WORKERS: z.coerce.number().int().min(1).max(64).default(2),
  /** Run starts (robots.txt and sitemap discovery) this instance works on at once; one per account. */
  AUDIT_RUN_WORKERS: z.coerce.number().int().min(1).max(32).default(2),
  /** Time a run's discovery (robots.txt and every sitemap together) may take, ms; then the run starts with what was found. */
  AUDIT_DISCOVERY_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  /** Links (or sitemap entries) read from one page or sitemap; the rest are ignored. */
  AUDIT_MAX_LINKS: z.coerce.number().int().min(10).max(100_000).default(5000),
  /** Audits one account may have (a create beyond it is a 422 `ERR_AUDIT_LIMIT`). */
  AUDIT_MAX_PER_ACCOUNT: z.coerce.number().int().min(1).max(100_000).default(50),
  /** Shortest time between two runs of a schedule, seconds (a more frequent cron is a 422 `ERR_SCHEDULE_TOO_FREQUENT`). */
  AUDIT_MIN_INTERVAL: z.coerce
    .number()
    .int()
    .min(1)
    .max(31 * 86_400)
    .default(3600),
  /** Audit pages one account may queue per UTC day, scheduled and on-demand together. */
  AUDIT_DAILY_PAGES: z.coerce.number().int().min(1).max(10_000_000).default(5000),
  /** Runs kept per audit; older runs (and their page rows) are deleted. Reports stay. */
  AUDIT_RUN_RETENTION: z.coerce.number().int().min(1).max(10_000).default(20),
  /** Seconds between the queue's maintenance and monitoring passes (stale jobs, schedules). */
  QUEUE_MONITOR_SECONDS: z.coerce.number().int().min(1).max(3600).default(10),
  /** Time one webhook delivery attempt may take, ms. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Webhooks one account may register (beyond it a 422 `ERR_WEBHOOK_LIMIT`). */
  WEBHOOK_MAX_PER_ACCOUNT: z.coerce.number().int().min(1).max(10_000).default(20),
  /** Deliveries this instance sends at once. */
  WEBHOOK_WORKERS: z.coerce.number().int().min(1).max(256).default(4),
  /** Deliveries of one account in flight at once, every instance together (exact). */
  WEBHOOK_KEY_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** Deliveries in a row that failed every attempt before their webhook is disabled. */
  WEBHOOK_DISABLE_AFTER: z.coerce.number().int().min(1).max(10_000).default(20),
  /**
   * Gateway mode (docs/gateway.md): the addresses (comma-separated CIDR blocks) whose
   * X-Forwarded-* and X-Original-* headers the forward-auth endpoint and the `/.auditcaptcha/`
   * pages believe; from any other peer they are ignored. Default: loopback.
   */
  GATEWAY_TRUSTED_PROXIES: z
    .string()
    .max(4096)
    .default('127.0.0.0/8,::1/128')
    .transform((text, ctx): Cidr[] => {
      const parsed = parseCidrList(text);
      if ('blocks' in parsed) return parsed.blocks;
      ctx.addIssue({ code: 'custom', message: `"${parsed.bad.slice(0, 60)}" is not an address or CIDR block` });
      return z.NEVER;
    }),
  /**
   * Name servers the gateway asks to verify search crawlers by reverse and forward DNS
   * (comma-separated `host` or `host:port`); unset: the system's.
   */
  GATEWAY_DNS_SERVERS: nameServers,
  /**
   * How long a proxy may keep a pass answer of the forward-auth endpoint (its `Cache-Control:
   * max-age`, for nginx's `proxy_cache`, docs/gateway.md); 0: `no-store`. Challenges and
   * denials are never cacheable.
   */
  GATEWAY_PASS_CACHE_SECONDS: z.coerce.number().int().min(0).max(60).default(5),
  /** Time one crawler check (its reverse and forward DNS queries together) may take, ms. */
  GATEWAY_DNS_TIMEOUT_MS: z.coerce.number().int().min(50).max(30_000).default(1_500),
  /** Google Safe Browsing API key: enables the `gsb` check. Unset: the check is left out. */
  GSB_API_KEY: z.string().min(1).max(512).optional(),
  /** Safe Browsing API base URL (tests point it at a local fake). */
  GSB_BASE_URL: z
    .string()
    .regex(/^https?:\/\/[^\s]+$/, 'must be an http(s) URL')
    .transform(withoutTrailingSlashes)
    .default('https://safebrowsing.googleapis.com'),
});

export type Env = z.infer<typeof envSchema>;

/** Validated configuration. `tokenKey` is always 32 bytes once `resolveTokenKey` has run. */
export interface Config extends Omit<Env, 'TOKEN_KEY'> {
  tokenKey?: Buffer;
  embedded: boolean;
}

/**
 * Parses the environment. Throws ConfigError with one line naming the first bad variable.
 * Empty strings count as unset, as a shell `FOO=` usually means.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned: Record<string, string> = {};
  for (const key of Object.keys(envSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') cleaned[key] = value;
  }
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue.path[0] ?? 'environment');
    const safe = name in cleaned && !SECRET_VARIABLES.has(name) ? redactSecrets(cleaned[name]) : undefined;
    const shown = safe === undefined ? '' : ` (got "${safe}")`;
    throw new ConfigError(`Invalid ${name}${shown}: ${issue.message}`);
  }
  const { TOKEN_KEY, ...rest } = parsed.data;
  return {
    ...rest,
    tokenKey: TOKEN_KEY ? decodeKey(TOKEN_KEY) : undefined,
    embedded: !rest.DATABASE_URL,
  };
}

/** Variables whose value is a secret as a whole: never shown in an error. */
const SECRET_VARIABLES = new Set(['TOKEN_KEY', 'METRICS_TOKEN', 'GSB_API_KEY']);

/**
 * A bad value as an error may show it: a URL with its password and query values replaced by
 * `***` (`postgresql://app:***@db/x`); `undefined` (not shown at all) when it looks like a URL
 * with credentials that does not parse, so no part of a secret can leak.
 */
export function redactSecrets(value: string): string | undefined {
  if (!value.includes('://') && !value.includes('@')) return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.password) url.password = '***';
  for (const key of [...url.searchParams.keys()]) url.searchParams.set(key, '***');
  return url.toString().replace(/%2A%2A%2A/g, '***');
}

function decodeKey(text: string): Buffer {
  return /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64url');
}

/**
 * Returns the token sealing key: TOKEN_KEY when set, otherwise the key kept in
 * DATA_DIR/token.key, generated on first use. Several instances must share TOKEN_KEY.
 */
export function resolveTokenKey(config: Config): Buffer {
  if (config.tokenKey) return config.tokenKey;
  const file = path.resolve(config.DATA_DIR, 'token.key');
  if (existsSync(file)) {
    const key = decodeKey(readFileSync(file, 'utf8').trim());
    if (key.length !== 32) throw new ConfigError(`Invalid ${file}: must hold a 32-byte key`);
    config.tokenKey = key;
    return key;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600 });
  config.tokenKey = key;
  return key;
}
