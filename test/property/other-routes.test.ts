/**
 * Hostile input on the routes outside the OpenAPI document: health, readiness, the document
 * and reference page, metrics, the widget and demo, the share pages, /trpc and unknown paths.
 * None may answer 5xx; JSON errors keep the documented shape (tRPC errors tRPC's own, with
 * the HTTP status inside); a refused request changes no stored data.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '../../routers/root.ts';
import { procedureRecord } from '../../facade/procedures.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import {
  scaledTimeout,
  createClient,
  describeExchange,
  expectErrorShape,
  expectHealthy,
  hostileEnv,
  isParserRefusal,
  printable,
  runs,
  snapshot,
  type HostileRequest,
  type RawResponse,
  type World,
} from './harness.ts';
import {
  authorizationArb,
  defang,
  forwardedForArb,
  hostileString,
  hostileValue,
  noiseHeadersArb,
  originArb,
  pathParamArb,
  pct,
} from './arbitraries.ts';
import {
  badEncodingArb,
  deepJsonArb,
  encodedObjectArb,
  malformedJsonArb,
  oversizedArb,
  wrongContentTypeArb,
} from './bodies.ts';

let services: TestServices;
let server: TestServer;
let client: ReturnType<typeof createClient>;
let world: World;

beforeAll(async () => {
  services = await openTestServices({ env: hostileEnv });
  server = await startTestServer(services);
  client = createClient(server.url);
  const owner = await createKeyedUser(services, 'hostile');
  world = {
    apiKey: owner.key,
    ownReportIds: [],
    strangerReportIds: [],
    projects: [],
    sitekey: 'sk_none',
    secret: 'sec_none',
    origin: 'https://shop.example',
    challengeIds: [],
    fixtureUrl: 'http://127.0.0.1:1/',
  };
});
afterAll(async () => {
  await client?.close();
  await server?.close();
  await services?.cleanup();
});

const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Known paths off the document, plus junk ones. */
const pathArb = fc.oneof(
  fc.constantFrom(
    '/healthz',
    '/readyz',
    '/api/openapi.json',
    '/api/docs',
    '/metrics',
    '/widget.js',
    '/widget.js?v=%ff',
    '/demo',
    '/demo/verify',
  ),
  pathParamArb(['1', '2']).map((id) => `/reports/${id}`),
  fc.constantFrom(
    '/',
    '//',
    '/api',
    '/api/',
    '/api/v1',
    '/api/v9/reports',
    '/healthz/',
    '/HEALTHZ',
    '/%2e%2e/%2e%2e/etc/passwd',
    '/..%5c..%5cwin.ini',
    '/api/v1/reports/1/../../account',
    '/*',
    '/%',
  ),
  fc.webPath().map((p) => p || '/'),
  hostileString.filter((s) => s.length < 500).map((s) => `/${pct(s)}`),
);

const bodyArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  {
    weight: 2,
    arbitrary: encodedObjectArb(
      fc.dictionary(
        fc.constantFrom('password', 'ac-response', 'cf-turnstile-response', 'mode', 'name', 'x'),
        hostileValue,
        { maxKeys: 4 },
      ),
    ),
  },
  { weight: 1, arbitrary: fc.oneof(deepJsonArb, badEncodingArb, malformedJsonArb, wrongContentTypeArb, oversizedArb) },
);

function requestArb(pathArbitrary: fc.Arbitrary<string>): fc.Arbitrary<HostileRequest> {
  return fc
    .record({
      method: fc.constantFrom(...methods),
      path: pathArbitrary,
      body: bodyArb,
      authorization: authorizationArb(world, 3),
      origin: originArb(world, 2),
      ip: forwardedForArb,
      noise: noiseHeadersArb,
    })
    .map(({ method, path, body, authorization, origin, ip, noise }) =>
      printable({ method, path, body, headers: { ...noise, authorization, origin, 'x-forwarded-for': ip } }),
    );
}

/** Below 500; a JSON error keeps its route's shape. HTML is for the pages (share page, demo, docs) only. */
function expectSane(req: HostileRequest, res: RawResponse): void {
  const where = describeExchange(req, res);
  expect(res.status, where).toBeLessThan(500);
  const type = String(res.headers['content-type'] ?? '');
  const path = req.path.split('?')[0];
  const page = /^\/(reports\/|demo|api\/docs$)/.test(path);
  if (res.status >= 400 && req.method !== 'HEAD') {
    const trpcBody = path.startsWith('/trpc') && !isParserRefusal(res) ? tryJson(res.body) : undefined;
    if (trpcBody && (Array.isArray(trpcBody) || 'error' in trpcBody)) {
      // tRPC's own error shape (its handler writes it, some with a text/plain type): the
      // HTTP status repeated inside.
      const errors = Array.isArray(trpcBody) ? trpcBody.map((b: any) => b.error).filter(Boolean) : [trpcBody.error];
      for (const e of errors) expect(e.data.httpStatus, where).toBeLessThan(500);
      if (!Array.isArray(trpcBody)) expect(trpcBody.error.data.httpStatus, where).toBe(res.status);
      return;
    }
    if (!page || type.startsWith('application/json')) expectErrorShape(res, where);
  }
}

function tryJson(body: Buffer): any {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

async function exercise(req: HostileRequest): Promise<void> {
  const before = await snapshot(services);
  const res = await client.send(req);
  expectSane(req, res);
  if (res.status >= 400) expect(await snapshot(services), describeExchange(req, res)).toEqual(before);
}

describe('routes outside the OpenAPI document under hostile input', () => {
  it(
    'answers system, page, widget and unknown routes below 500 in their shapes',
    { timeout: scaledTimeout(120_000) },
    async () => {
      await fc.assert(fc.asyncProperty(requestArb(pathArb), exercise), runs(80, 60));
      await expectHealthy(server.url);
    },
  );

  it(
    'answers /trpc below 500 whatever procedure, input or body it is sent',
    { timeout: scaledTimeout(120_000) },
    async () => {
      const procedures = Object.keys(procedureRecord(appRouter));
      const input = fc
        .dictionary(
          fc.constantFrom(
            'name',
            'origins',
            'sitekey',
            'url',
            'search',
            'id',
            'page',
            'privacy',
            'password',
            'project',
          ),
          hostileValue,
          { maxKeys: 4 },
        )
        .map((v) => defang(v));
      const trpcPath = fc.tuple(
        fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...procedures) },
          { weight: 1, arbitrary: hostileString.filter((s) => s.length < 200).map(pct) },
        ),
        fc.oneof(
          fc.constant(''),
          input.map((i) => `?input=${pct(JSON.stringify(i))}`),
          input.map((i) => `?batch=1&input=${pct(JSON.stringify({ 0: i }))}`),
          fc.constantFrom('?input=%7B', '?input=%ff', '?batch=x'),
        ),
      );
      const arb = fc
        .tuple(requestArb(trpcPath.map(([p, q]) => `/trpc/${p}${q}`)), input, fc.boolean())
        .map(([req, body, json]) =>
          printable({
            ...req,
            body:
              json && req.method === 'POST'
                ? { kind: 'json', contentType: 'application/json', body: Buffer.from(JSON.stringify(body)) }
                : req.body,
          }),
        );
      await fc.assert(fc.asyncProperty(arb, exercise), runs(60, 60));
      await expectHealthy(server.url);
    },
  );

  // Regression: a NUL in a stored field once reached PostgreSQL through /trpc (500); the base
  // procedure now refuses it for every transport (src/input/guards.ts).
  it('answers a NUL in a stored field on /trpc below 500', async () => {
    const req: HostileRequest = {
      method: 'POST',
      path: '/trpc/sites.create',
      headers: { authorization: `Bearer ${world.apiKey}` },
      body: {
        kind: 'json',
        contentType: 'application/json',
        body: Buffer.from('{"name":"a\\u0000b","origins":["https://a.example"]}'),
      },
    };
    const res = await client.send(req);
    expect(res.status, describeExchange(req, res)).toBeLessThan(500);
  });
});
