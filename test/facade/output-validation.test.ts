import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApp } from '../../facade/app.ts';
import { listen, type RunningServer } from '../../facade/server.ts';
import { apiKeyProcedure, originProcedure, publicProcedure, router } from '../../routers/trpc.ts';
import { appRouter } from '../../routers/root.ts';
import { inProtocol } from '../../src/captcha/protocols.ts';
import { SITEVERIFY_PATHS } from '../../facade/siteverify.ts';
import type { Verdict } from '../../src/captcha/siteverify.ts';
import { createKeyedUser, openTestServices, type TestServices } from '../helpers/services.ts';
import { request } from '../helpers/http.ts';
import { createTestSite, siteverify, v3Token } from '../helpers/captcha.ts';

/**
 * Output parsers run on every route, in tests as in production: a procedure that returns a
 * field its output schema does not declare never sends it, whatever its auth kind. Siteverify
 * goes through the same parser; the facade then shapes its verdict for the path it was called
 * at, and the tests below hold every answer of every path to that path's documented fields.
 */
const answer = z.object({ ok: z.boolean() });
const leaky = () => ({ ok: true, leakedTokenId: 'tok_secret' });
const leakyRouter = router({
  leaky: router({
    public: publicProcedure
      .meta({ openapi: { method: 'GET', path: '/api/test/leaky/public' } })
      .input(z.void())
      .output(answer)
      .query(leaky),
    apiKey: apiKeyProcedure
      .meta({ openapi: { method: 'GET', path: '/api/test/leaky/api-key' } })
      .input(z.void())
      .output(answer)
      .query(leaky),
    origin: originProcedure
      .meta({ openapi: { method: 'POST', path: '/api/test/leaky/origin' } })
      .input(z.object({ sitekey: z.string().optional() }))
      .output(answer)
      .mutation(leaky),
  }),
});

/** The fields each siteverify path documents (docs/challenges.md, src/captcha/protocols.ts). */
const documented: Record<string, string[]> = {
  '/api/siteverify': [
    'success',
    'challenge_ts',
    'hostname',
    'error-codes',
    'action',
    'cdata',
    'score',
    'kind',
    'reasons',
  ],
  '/api/v1/siteverify': [
    'success',
    'challenge_ts',
    'hostname',
    'error-codes',
    'action',
    'cdata',
    'score',
    'kind',
    'reasons',
  ],
  '/turnstile/v0/siteverify': [
    'success',
    'challenge_ts',
    'hostname',
    'error-codes',
    'action',
    'cdata',
    'score',
    'kind',
    'metadata',
  ],
  '/recaptcha/api/siteverify': ['success', 'challenge_ts', 'hostname', 'error-codes', 'action', 'score'],
  '/siteverify': ['success', 'challenge_ts', 'hostname', 'error-codes', 'credit'],
};

let services: TestServices;
let leakyServer: RunningServer;
let realServer: RunningServer;
let key: string;

beforeAll(async () => {
  services = await openTestServices({ env: { CAPTCHA_ENGINE: 'auto' } });
  const options = { port: 0, host: '127.0.0.1', requestTimeoutMs: 10_000 };
  leakyServer = await listen(createApp(services, leakyRouter), options);
  // The production app: /trpc serves the typed client's procedures, siteverify among them.
  realServer = await listen(createApp(services, appRouter), options);
  key = (await createKeyedUser(services, 'leaky')).key;
});
afterAll(async () => {
  await leakyServer?.close(1000);
  await realServer?.close(1000);
  await services?.cleanup();
});

/** A new site on the real server and a v3 token for it, solved from `ip`. */
async function siteWithToken(ip: string) {
  const base = `http://127.0.0.1:${realServer.port}`;
  const site = await createTestSite(services, ['https://shop.example']);
  const token = await v3Token(base, {
    sitekey: site.sitekey,
    origin: 'https://shop.example',
    ip,
    action: 'login',
    cdata: 'c',
    tokenKey: services.config.tokenKey,
  });
  expect(token.status).toBe(201);
  return { base, site, token };
}

describe('output validation', () => {
  it.each([
    ['public', 'GET', '/api/test/leaky/public'],
    ['apiKey', 'GET', '/api/test/leaky/api-key'],
    ['origin', 'POST', '/api/test/leaky/origin'],
  ] as const)('drops a field the %s procedure does not declare', async (_auth, method, path) => {
    const res = await request(`http://127.0.0.1:${leakyServer.port}${path}`, {
      method,
      key,
      ...(method === 'POST' ? { json: {} } : {}),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(Object.keys(res.body as object)).toEqual(['ok']);
  });

  it.each(Object.entries(documented))(
    'answers siteverify at %s with only its documented fields',
    async (path, fields) => {
      const { base, site, token } = await siteWithToken('10.9.8.7');
      const success = await siteverify(base, { secret: site.secret, response: token.body.token }, path);
      expect(success.body.success).toBe(true);
      const replay = await siteverify(base, { secret: site.secret, response: token.body.token }, path);
      expect(replay.body.success).toBe(false);
      for (const verdict of [success.body, replay.body]) {
        for (const field of Object.keys(verdict as object)) expect(fields, `${path}: ${field}`).toContain(field);
      }
    },
  );

  it.each(Object.keys(documented))(
    'answers siteverify at %s, whatever the outcome, with only its documented fields',
    async (path) => {
      const { base, site, token } = await siteWithToken('10.9.8.6');
      const answers = [
        await siteverify(base, { secret: site.secret, response: token.body.token }, path),
        await siteverify(base, { secret: site.secret, response: token.body.token }, path),
        await siteverify(base, { secret: site.secret, response: 'not-a-token' }, path),
        await siteverify(base, { secret: 'sec_0000000000_unknown', response: token.body.token }, path),
        await siteverify(base, { response: token.body.token }, path),
        await request(`${base}${path}`, { method: 'POST', json: { secret: 7, response: ['x'] } }),
        await request(`${base}${path}`, { method: 'POST', json: { secret: 'a\u0000b', response: 'x' } }),
      ];
      expect(answers[0].body.success).toBe(true);
      for (const answer of answers) {
        const body = answer.body as Record<string, unknown>;
        expect(answer.status, JSON.stringify(body)).toBe(200);
        expect(typeof body.success).toBe('boolean');
        expect(Array.isArray(body['error-codes'])).toBe(true);
        for (const field of Object.keys(body)) expect(documented[path], `${path}: ${field}`).toContain(field);
      }
    },
  );

  it.each(SITEVERIFY_PATHS.map(({ path, protocol }) => [path, protocol] as const))(
    'answers at %s what siteverify.verify answers on /trpc, in the %s shape',
    async (path, protocol) => {
      const base = `http://127.0.0.1:${realServer.port}`;
      const site = await createTestSite(services, ['https://shop.example']);
      const bodies: Array<Record<string, string>> = [
        { secret: site.secret, response: 'not-a-token' },
        { secret: 'sec_0000000000_unknown', response: 'x' },
        { secret: site.secret },
      ];
      for (const body of bodies) {
        const rest = await siteverify(base, body, path);
        // No API key: a site's own service calls it with the site's secret alone.
        const trpc = await request(`${base}/trpc/siteverify.verify`, { method: 'POST', json: body });
        expect(trpc.status).toBe(200);
        const verdict = (trpc.body as { result: { data: Verdict } }).result.data;
        expect(inProtocol(verdict, protocol)).toEqual(rest.body);
      }
    },
  );
});
