import { readFile } from 'node:fs/promises';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '../../client/api.d.ts';
import { clientTypesFile, generateClientTypes } from '../../client/generate.ts';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.ts';
import { expectConformant } from '../helpers/openapi-conformance.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';

let services: TestServices;
let server: TestServer;
let site: FixtureSite;
let key: string;

beforeAll(async () => {
  services = await openTestServices({ env: { ANALYZER_ALLOW_PRIVATE: 'true' } });
  server = await startTestServer(services);
  site = await startFixtureSite();
  ({ key } = await createKeyedUser(services, 'typed-client'));
});
afterAll(async () => {
  await server?.close();
  await site?.close();
  await services?.cleanup();
});

/** A client typed by client/api.d.ts; every answer is also checked against the document. */
function typedClient(apiKey: string) {
  const api = createClient<paths>({ baseUrl: server.url, headers: { Authorization: `Bearer ${apiKey}` } });
  api.use({
    async onResponse({ request, response }) {
      const text = await response.clone().text();
      const body: unknown =
        text && response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : undefined;
      await expectConformant({
        method: request.method,
        path: request.url,
        status: response.status,
        headers: response.headers,
        body,
      });
    },
  });
  return api;
}

describe('the generated client (openapi-typescript + openapi-fetch)', () => {
  it('is up to date with the OpenAPI document', async () => {
    expect(await readFile(clientTypesFile, 'utf8')).toBe(await generateClientTypes());
  });

  it('creates, lists and deletes reports with typed calls', async () => {
    const api = typedClient(key);
    const created = await api.POST('/api/v1/reports', { body: { url: `${site.url}/good`, privacy: '0' } });
    expect(created.response.status).toBe(201);
    const report = created.data!.data;
    expect(report).toMatchObject({ privacy: 0, password: false, project: '127.0.0.1' });

    const listed = await api.GET('/api/v1/reports', { params: { query: { sort_by: 'id', sort: 'desc' } } });
    expect(listed.response.status).toBe(200);
    expect(listed.data!.data.map((r) => r.id)).toContain(report.id);

    const removed = await api.DELETE('/api/v1/reports/{id}', { params: { path: { id: String(report.id) } } });
    expect(removed.response.status).toBe(200);

    const gone = await api.GET('/api/v1/reports/{id}', { params: { path: { id: String(report.id) } } });
    expect(gone.response.status).toBe(404);
    expect(gone.error).toMatchObject({ code: 'ERR_NOT_FOUND', status: 404 });
  });

  it('gets typed errors with their codes', async () => {
    const anonymous = await typedClient('ak_nope').GET('/api/v1/reports');
    expect(anonymous.response.status).toBe(401);
    expect(anonymous.error).toMatchObject({ code: 'ERR_API_KEY_INVALID', status: 401 });
    const invalid = await typedClient(key).POST('/api/v1/reports', { body: { url: 'not a url' } });
    expect(invalid.response.status).toBe(422);
    expect(invalid.error?.errors?.url).toEqual([expect.any(String)]);
  });
});
