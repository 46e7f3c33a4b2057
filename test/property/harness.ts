/**
 * The harness of the hostile-input suites: settings, the world generators draw from, a raw
 * HTTP sender (undici's dispatcher, so paths go out byte for byte, never normalised), the
 * invariants every answer must keep, and a fingerprint of stored data.
 */
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { Agent } from 'undici';
import { expect } from 'vitest';
import { errorCodes, type PublicErrorCode } from '../../src/errors.ts';
import type { OpenedServices } from '../../src/services.ts';
import { expectConformant } from '../helpers/openapi-conformance.ts';
import type { HostileBody } from './bodies.ts';

// ---------------------------------------------------------------------------------------
// Environment and context

/** Env for the hostile suites: limits that property runs would trip are raised or keyed per request. */
export const hostileEnv = {
  TRUST_PROXY: 'true',
  API_RATE_LIMIT: '1000000',
  SHARE_PASSWORD_ATTEMPTS: '1000000',
  ANALYZER_ALLOW_PRIVATE: 'false',
  ANALYZER_TIMEOUT_MS: '2000',
  BODY_LIMIT_BYTES: '65536',
};

export const BODY_LIMIT = Number(hostileEnv.BODY_LIMIT_BYTES);

/** What generators may draw from: real keys and ids, so some requests get past authentication. */
export interface World {
  apiKey: string;
  /** Ids of reports the key's user owns, and of a stranger's. */
  ownReportIds: string[];
  strangerReportIds: string[];
  projects: string[];
  sitekey: string;
  secret: string;
  origin: string;
  challengeIds: string[];
  /** A URL on the loopback fixture site (refused: private addresses are not allowed here). */
  fixtureUrl: string;
}

/** Multiplies every property's runs (and time budget), for a deeper hunt: PROPERTY_RUNS_SCALE=10. */
const scale = Math.max(1, Math.min(100, Number(process.env.PROPERTY_RUNS_SCALE) || 1));

/** A test's time limit, scaled with PROPERTY_RUNS_SCALE. */
export const scaledTimeout = (ms: number) => ms * scale;

/** A failing run's seed, to run it again: PROPERTY_SEED=1571213636 (fast-check prints it). */
const seed = process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : undefined;

/** fast-check settings: few runs, bounded in time, first failure reported as is (no long shrinking). */
export function runs(numRuns: number, seconds = 60): fc.Parameters<unknown> {
  return {
    ...(seed === undefined ? {} : { seed }),
    numRuns: numRuns * scale,
    endOnFailure: true,
    interruptAfterTimeLimit: seconds * 1000 * scale,
    markInterruptAsFailure: false,
  };
}

// ---------------------------------------------------------------------------------------
// Sending

export interface HostileRequest {
  method: string;
  path: string;
  headers: Record<string, string | undefined>;
  body?: HostileBody;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Gives a request a short printable form, so a failing counterexample does not print 100 KB bodies. */
export function printable(req: HostileRequest): HostileRequest {
  const text = () => {
    const body = req.body
      ? ` body=${req.body.kind} ${req.body.contentType} ${req.body.body?.length ?? 0}B ${JSON.stringify(req.body.body?.subarray(0, 120).toString('latin1'))}`
      : '';
    return `${req.method} ${req.path.slice(0, 200)}${req.path.length > 200 ? `…(${req.path.length})` : ''} headers=${JSON.stringify(req.headers).slice(0, 400)}${body}`;
  };
  Object.defineProperty(req, fc.toStringMethod, { value: text, enumerable: false });
  return req;
}

export function createClient(base: string) {
  const agent = new Agent({ connections: 4, headersTimeout: 15_000, bodyTimeout: 15_000, keepAliveTimeout: 2_000 });
  return {
    async send(req: HostileRequest): Promise<RawResponse> {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = v;
      let body: Buffer | Readable | undefined = req.body?.body;
      if (req.body?.contentType !== undefined) headers['content-type'] = req.body.contentType;
      if (req.body?.kind === 'gzip-not-gzip') headers['content-encoding'] = 'gzip';
      if (req.body?.chunked && req.body.body) {
        const bytes = req.body.body;
        body = Readable.from(
          (function* () {
            for (let i = 0; i < bytes.length; i += 16_384) yield bytes.subarray(i, i + 16_384);
          })(),
        );
      }
      // The dispatcher API sends the path byte for byte (undici's request() would normalise it).
      const res = await agent.request({
        origin: new URL(base).origin,
        method: req.method,
        path: req.path,
        headers,
        body,
        signal: AbortSignal.timeout(20_000),
      });
      const chunks: Buffer[] = [];
      for await (const chunk of res.body) chunks.push(chunk as Buffer);
      return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) };
    },
    close: () => agent.close(),
  };
}

// ---------------------------------------------------------------------------------------
// Invariants

const siteverifyCodes = new Set([
  'missing-input-secret',
  'invalid-input-secret',
  'missing-input-response',
  'invalid-input-response',
  'timeout-or-duplicate',
  'bad-request',
  'internal-error',
  'rate-limited',
  // hCaptcha's name for timeout-or-duplicate, on its siteverify path (issue 14).
  'invalid-or-already-seen-response',
]);

export function describeExchange(req: HostileRequest, res: RawResponse): string {
  const body = req.body?.body ? req.body.body.subarray(0, 300).toString('latin1') : '';
  return [
    `${req.method} ${req.path.slice(0, 300)}`,
    `headers: ${JSON.stringify(req.headers).slice(0, 500)}`,
    req.body
      ? `body (${req.body.kind}, ${req.body.contentType}, ${req.body.body?.length ?? 0} bytes): ${JSON.stringify(body)}`
      : 'no body',
    `-> ${res.status} ${String(res.headers['content-type'])} ${res.body.subarray(0, 500).toString('utf8')}`,
  ].join('\n');
}

function parseJson(res: RawResponse, where: string): any {
  expect(String(res.headers['content-type']), where).toMatch(/^application\/json/);
  try {
    return JSON.parse(res.body.toString('utf8'));
  } catch {
    throw new Error(`answer is not JSON\n${where}`);
  }
}

/** `{code, message, status, errors?, reason?}` with `status` equal to the HTTP status and a documented code. */
export function expectErrorShape(res: RawResponse, where: string): void {
  const body = parseJson(res, where);
  expect(typeof body, where).toBe('object');
  expect(
    Object.keys(body).filter((k) => !['code', 'message', 'status', 'errors', 'reason'].includes(k)),
    where,
  ).toEqual([]);
  expect(errorCodes[body.code as PublicErrorCode]?.status, where).toBe(body.status);
  expect(typeof body.message, where).toBe('string');
  expect(body.status, where).toBe(res.status);
  if (body.errors !== undefined) {
    expect(typeof body.errors, where).toBe('object');
    for (const messages of Object.values(body.errors)) {
      expect(Array.isArray(messages), where).toBe(true);
      for (const m of messages as unknown[]) expect(typeof m, where).toBe('string');
    }
  }
}

/**
 * Answers Node's HTTP parser gives before any route runs (facade/server.ts): a request line or
 * headers it cannot parse (400), too large (431), or too slow (408). They carry no request id.
 */
export function isParserRefusal(res: RawResponse): boolean {
  return [400, 408, 431].includes(res.status) && res.headers['x-request-id'] === undefined;
}

/** Siteverify answers in its protocol whatever it is sent: HTTP 200 (429 when limited), `{success, error-codes}`. */
export function expectSiteverifyShape(res: RawResponse, where: string): void {
  if (isParserRefusal(res)) return expectErrorShape(res, where);
  expect([200, 429], where).toContain(res.status);
  const body = parseJson(res, where);
  expect(typeof body.success, where).toBe('boolean');
  expect(Array.isArray(body['error-codes']), where).toBe(true);
  for (const code of body['error-codes'])
    expect(siteverifyCodes.has(code), `${where}\nunknown code ${code}`).toBe(true);
  if (res.status === 429) expect(body['error-codes'], where).toEqual(['rate-limited']);
}

/**
 * Gateway mode's forward auth answers in the proxies' protocol whatever it is sent, with any
 * method: 204 or 302, or 401/403 with a short plain-text reason, and the outcome in a header;
 * a path naming no proxy protocol is a plain-text 404.
 */
export function expectForwardAuthShape(res: RawResponse, where: string, head: boolean): void {
  if (isParserRefusal(res)) return expectErrorShape(res, where);
  if (res.status === 404) {
    expect(String(res.headers['content-type']), where).toMatch(/^text\/plain/);
    return;
  }
  expect([204, 302, 401, 403], where).toContain(res.status);
  expect(res.headers['x-gateway-outcome'], where).toBeDefined();
  if (res.status >= 400) {
    expect(String(res.headers['content-type']), where).toMatch(/^text\/plain/);
    if (!head) expect(res.body.length, where).toBeGreaterThan(0);
  }
}

/** No 5xx, never HTML for an error, and the documented shape for errors on JSON routes. */
export function expectSaneAnswer(
  req: HostileRequest,
  res: RawResponse,
  opts: { siteverify?: boolean; forwardAuth?: boolean; binary?: string } = {},
): void {
  const where = describeExchange(req, res);
  expect(res.status, where).toBeLessThan(500);
  expect(res.status, where).toBeGreaterThanOrEqual(200);
  if (opts.forwardAuth) return expectForwardAuthShape(res, where, req.method === 'HEAD');
  if (req.method === 'HEAD') {
    // No body to check; an error still says it is JSON.
    if (res.status >= 400) expect(String(res.headers['content-type']), where).toMatch(/^application\/json/);
    return;
  }
  if (opts.siteverify) return expectSiteverifyShape(res, where);
  if (res.status >= 400) return expectErrorShape(res, where);
  if (req.method === 'HEAD' || req.method === 'OPTIONS' || res.status === 204 || res.body.length === 0) return;
  if (opts.binary && String(res.headers['content-type']).startsWith(opts.binary)) return;
  parseJson(res, where);
}

/** The answer matches what the OpenAPI document says of its operation and status. */
export async function expectDocumented(req: HostileRequest, res: RawResponse): Promise<void> {
  let body: unknown;
  const text = res.body.toString('utf8');
  if (String(res.headers['content-type']).startsWith('application/json')) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  } else if (text) {
    body = text;
  }
  await expectConformant({ method: req.method, path: req.path, status: res.status, headers: res.headers, body });
}

// ---------------------------------------------------------------------------------------
// Stored data

/**
 * A fingerprint of every stored row a request could touch: users, API keys (without
 * `last_used_at`, which authentication refreshes by design), reports, projects, sites.
 */
export async function snapshot(services: OpenedServices): Promise<Record<string, string>> {
  const conn = services.orm.em.getConnection();
  const tables: Array<[string, string]> = [
    ['users', 't'],
    ['api_keys', 'row(t.id, t.user_id, t.name, t.prefix, t.hash, t.created_at, t.revoked_at)'],
    ['reports', 't'],
    ['projects', 't'],
    ['sites', 't'],
  ];
  const out: Record<string, string> = {};
  for (const [table, row] of tables) {
    const [r] = await conn.execute(
      `select count(*)::int as n, md5(coalesce(string_agg((${row})::text, '|' order by t.id), '')) as h from "${table}" t`,
    );
    out[table] = `${r.n}:${r.h}`;
  }
  return out;
}

export async function expectHealthy(base: string): Promise<void> {
  const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(10_000) });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ status: 'ok' });
}
