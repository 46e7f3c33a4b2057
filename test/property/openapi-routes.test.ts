/**
 * Hostile input on every operation of the OpenAPI document, through real HTTP: wrong types,
 * missing and extra fields, huge strings, deep nesting, bad encodings, duplicated query
 * parameters, wrong content types, junk path segments, garbage credentials and origins.
 * Every answer must be below 500, in the documented shape, and a refused request must not
 * change stored data.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syntheticAnalysis } from '../helpers/analysis.ts';
import { createReport } from '../../src/reports/reports.ts';
import { TEST_SITEKEYS } from '../helpers/test-keys.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { browser, createTestSite } from '../helpers/captcha.ts';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.ts';
import {
  scaledTimeout,
  createClient,
  expectDocumented,
  expectHealthy,
  expectSaneAnswer,
  describeExchange,
  hostileEnv,
  printable,
  runs,
  snapshot,
  type HostileRequest,
  type World,
} from './harness.ts';
import {
  authorizationArb,
  forwardedForArb,
  noiseHeadersArb,
  originArb,
  pathParamArb,
  pct,
  queryArb,
} from './arbitraries.ts';
import {
  badEncodingArb,
  deepJsonArb,
  encodedObjectArb,
  malformedJsonArb,
  objectFor,
  oversizedArb,
  validFor,
  wrongContentTypeArb,
  type HostileBody,
  type JsonSchema,
} from './bodies.ts';

interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  query: Array<{ name: string; schema?: JsonSchema }>;
  body?: JsonSchema;
  apiKey: boolean;
  browser: boolean;
  siteverify: boolean;
  /** Gateway mode's forward auth: the proxies' protocol, on any method. */
  forwardAuth: boolean;
  binary?: string;
}

let services: TestServices;
let server: TestServer;
let fixture: FixtureSite;
let client: ReturnType<typeof createClient>;
let world: World;
let operations: Operation[] = [];

/** Every operation of the served document, with what a generator needs to know about it. */
function operationsOf(doc: any): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const params = (op.parameters ?? []) as Array<{ in: string; name: string; schema?: JsonSchema }>;
      const content = op.requestBody?.content as Record<string, { schema: JsonSchema }> | undefined;
      const ok = op.responses?.['200']?.content ?? op.responses?.['201']?.content ?? {};
      out.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema })),
        body: content ? Object.values(content)[0].schema : undefined,
        apiKey: Boolean(op.security?.length),
        browser: (op.tags ?? []).includes('challenges'),
        siteverify: (op.tags ?? []).includes('siteverify'),
        forwardAuth: op.operationId === 'gateway-auth',
        binary: Object.keys(ok).find((t) => !t.includes('json')),
      });
    }
  }
  return out;
}

beforeAll(async () => {
  fixture = await startFixtureSite();
  // With the job queue, as a server runs: the audit routes answer rather than 503.
  services = await openTestServices({ env: hostileEnv, queue: true });
  server = await startTestServer(services);
  client = createClient(server.url);

  const owner = await createKeyedUser(services, 'hostile');
  const stranger = await createKeyedUser(services, 'stranger');
  const ownReportIds: string[] = [];
  for (const [i, privacy] of [0, 1, 2].entries()) {
    const r = await createReport(
      services.orm.em.fork(),
      owner.user.id,
      { privacy: privacy as 0 | 1 | 2, password: privacy === 2 ? 'secret pw' : undefined },
      syntheticAnalysis(`https://seed.invalid/p${i}`, 40 + i * 25),
    );
    ownReportIds.push(String(r.id));
  }
  const theirs = await createReport(
    services.orm.em.fork(),
    stranger.user.id,
    { privacy: 0 },
    syntheticAnalysis('https://theirs.invalid/x', 90),
  );
  const site = await createTestSite(services, ['https://shop.example']);

  const challengeIds: string[] = [];
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${server.url}/api/v1/challenges`, {
      method: 'POST',
      headers: { ...browser('https://shop.example', `10.9.0.${i}`), 'Content-Type': 'application/json' },
      body: JSON.stringify({ sitekey: i === 0 ? site.sitekey : TEST_SITEKEYS.interactive }),
    });
    expect(res.status).toBe(201);
    challengeIds.push((await res.json()).challenge);
  }

  world = {
    apiKey: owner.key,
    ownReportIds,
    strangerReportIds: [String(theirs.id)],
    projects: ['seed.invalid', 'theirs.invalid'],
    sitekey: site.sitekey,
    secret: site.secret,
    origin: 'https://shop.example',
    challengeIds,
    fixtureUrl: `${fixture.url}/good`,
  };

  const doc = await (await fetch(`${server.url}/api/openapi.json`)).json();
  operations = operationsOf(doc);
});

afterAll(async () => {
  await client?.close();
  await server?.close();
  await services?.cleanup();
  await fixture?.close();
});

function pathParamValues(name: string): string[] {
  if (name === 'id') return [...world.ownReportIds, ...world.strangerReportIds];
  if (name === 'project') return world.projects.map(pct);
  if (name === 'challenge') return world.challengeIds;
  return [];
}

const otherMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

function requestArb(op: Operation, bodyArb?: fc.Arbitrary<HostileBody | undefined>): fc.Arbitrary<HostileRequest> {
  const path = fc
    .tuple(...op.pathParams.map((name) => pathParamArb(pathParamValues(name))))
    .map((values) => op.path.replace(/\{(\w+)\}/g, (_, name: string) => values[op.pathParams.indexOf(name)]));
  const query = queryArb(op.query.map((q) => ({ name: q.name, valid: validFor(q.name, q.schema, world).map(String) })));
  const method = fc.oneof(
    { weight: 9, arbitrary: fc.constant(op.method) },
    { weight: 1, arbitrary: fc.constantFrom(...otherMethods.filter((m) => m !== op.method)) },
  );
  const structured = op.body ? encodedObjectArb(objectFor(op.body, world)) : fc.constant(undefined);
  const body =
    bodyArb ??
    fc.oneof(
      { weight: op.body ? 8 : 1, arbitrary: structured },
      { weight: op.body ? 1 : 6, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: deepJsonArb },
      { weight: 1, arbitrary: badEncodingArb },
      { weight: 1, arbitrary: malformedJsonArb },
      { weight: 1, arbitrary: wrongContentTypeArb },
      { weight: 1, arbitrary: oversizedArb },
    );
  const headers = fc.record({
    authorization: authorizationArb(world, op.apiKey ? 5 : 1),
    origin: originArb(world, op.browser ? 5 : 1),
    'x-forwarded-for': forwardedForArb,
    noise: noiseHeadersArb,
  });
  return fc
    .record({ method, path, query, body, headers })
    .map(({ method, path, query, body, headers: { noise, ...h } }) =>
      printable({ method, path: path + query, headers: { ...noise, ...h }, body }),
    );
}

/** Sends one request and checks every invariant; data may only change on a success. */
async function exercise(op: Operation, req: HostileRequest): Promise<void> {
  const before = await snapshot(services);
  const res = await client.send(req);
  expectSaneAnswer(req, res, {
    siteverify: op.siteverify && req.method === op.method,
    forwardAuth: op.forwardAuth,
    binary: op.binary,
  });
  await expectDocumented(req, res);
  if (res.status >= 400) expect(await snapshot(services), describeExchange(req, res)).toEqual(before);
}

describe('every operation of the OpenAPI document under hostile input', () => {
  it('covers the whole document', () => {
    expect(operations.length).toBeGreaterThanOrEqual(17);
    expect(operations.filter((o) => o.apiKey).length).toBeGreaterThan(0);
    // The spec's two paths and the Turnstile, reCAPTCHA and hCaptcha ones (issue 14).
    expect(operations.filter((o) => o.siteverify).length).toBe(5);
    expect(operations.filter((o) => o.forwardAuth).length).toBe(1);
  });

  // One property per operation; 12 runs each keeps the suite near 200 requests.
  it(
    'answers every operation below 500, in the documented shape, leaving data alone when refusing',
    { timeout: scaledTimeout(240_000) },
    async () => {
      for (const op of operations) {
        await fc.assert(
          fc.asyncProperty(requestArb(op), (req) => exercise(op, req)),
          runs(12, 30),
        );
        await expectHealthy(server.url);
      }
    },
  );

  it(
    'survives deeply nested, badly encoded, malformed and oversized bodies on every body route',
    { timeout: scaledTimeout(120_000) },
    async () => {
      const withBody = operations.filter((o) => o.body);
      expect(withBody.length).toBeGreaterThan(0);
      const arb = fc.tuple(
        fc.constantFrom(...withBody),
        fc.oneof(deepJsonArb, badEncodingArb, malformedJsonArb, oversizedArb, wrongContentTypeArb),
      );
      await fc.assert(
        fc.asyncProperty(
          arb.chain(([op, body]) =>
            requestArb(op, fc.constant(body)).map((req) => [op, printable({ ...req, method: op.method })] as const),
          ),
          ([op, req]) => exercise(op, req),
        ),
        runs(50, 60),
      );
      await expectHealthy(server.url);
    },
  );

  it(
    'answers 401 in the documented shape to every API-key operation without a valid key',
    { timeout: scaledTimeout(60_000) },
    async () => {
      const guarded = operations.filter((o) => o.apiKey);
      const badAuth = authorizationArb(world, 0).filter((a) => a !== `Bearer ${world.apiKey}`);
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...guarded), badAuth, forwardedForArb, async (op, authorization, ip) => {
          const path = op.path.replace(/\{\w+\}/g, '1');
          const req: HostileRequest = { method: op.method, path, headers: { authorization, 'x-forwarded-for': ip } };
          const before = await snapshot(services);
          const res = await client.send(req);
          expectSaneAnswer(req, res);
          await expectDocumented(req, res);
          expect(res.status, describeExchange(req, res)).toBe(401);
          expect(await snapshot(services)).toEqual(before);
        }),
        runs(30, 30),
      );
    },
  );

  // Regression: PGlite's dialect once ran any SQL with a `;` (inside a value too) as several
  // statements and answered 500 (src/db/pglite-statements.ts).
  it('answers a `;` in looked-up values below 500', async () => {
    const probes: HostileRequest[] = [
      { method: 'GET', path: '/api/v1/reports?search=a%3Bb', headers: { authorization: `Bearer ${world.apiKey}` } },
      { method: 'GET', path: '/api/v1/projects?search=a%3Bb', headers: { authorization: `Bearer ${world.apiKey}` } },
      { method: 'DELETE', path: '/api/v1/projects/a%3Bb', headers: { authorization: `Bearer ${world.apiKey}` } },
      {
        method: 'POST',
        path: '/api/v3/challenges',
        headers: { origin: world.origin, 'x-forwarded-for': '10.7.0.1' },
        body: { kind: 'json', contentType: 'application/json', body: Buffer.from('{"sitekey":"a;b","action":"x"}') },
      },
    ];
    for (const req of probes) {
      const res = await client.send(req);
      expect(res.status, describeExchange(req, res)).toBeLessThan(500);
    }
  });
});
