import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validate } from '@readme/openapi-parser';
import { buildRouteTable } from '../../facade/route-table.ts';
import { appRouter } from '../../routers/root.ts';
import { openTestServices, startTestServer, type TestServer, type TestServices } from '../helpers/services.ts';
import { conformanceProblems } from '../helpers/openapi-conformance.ts';

let services: TestServices;
let server: TestServer;
beforeAll(async () => {
  services = await openTestServices({ store: 'memory' });
  server = await startTestServer(services);
});
afterAll(async () => {
  await server?.close();
  await services?.cleanup();
});

describe('OpenAPI', () => {
  it('serves a valid OpenAPI 3.1 document', async () => {
    const doc = await (await fetch(`${server.url}/api/openapi.json`)).json();
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc));
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('documents exactly the mounted REST routes', async () => {
    const doc = await (await fetch(`${server.url}/api/openapi.json`)).json();
    const documented = Object.entries(doc.paths as Record<string, object>)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    const mounted = buildRouteTable(appRouter)
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    expect(documented).toEqual(mounted);
    expect(mounted).toContain('GET /api/v1/account');
  });

  it('serves a readable reference page without scripts or remote assets', async () => {
    const res = await fetch(`${server.url}/api/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).toContain('/api/v1/account');
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/(src|href)="https?:\/\//i);
  });
});

describe('the conformance check the tests apply to every answer', () => {
  const notFound = { 'content-type': 'application/json' };
  const body = { code: 'ERR_NOT_FOUND', message: 'Report not found.', status: 404 };

  it('judges a report id the matcher would trim or split as no operation, not as the list', async () => {
    // To the server these name one report ("\f", "/", "."); the matcher would see the list.
    for (const path of ['/api/v1/reports/%0C', '/api/v1/reports/%2F', '/api/v1/reports/.']) {
      expect(await conformanceProblems({ method: 'GET', path, status: 404, headers: notFound, body }), path).toEqual(
        [],
      );
    }
  });

  it('still finds an undocumented status on the operation a path names', async () => {
    const problems = await conformanceProblems({
      method: 'GET',
      path: '/api/v1/reports',
      status: 404,
      headers: notFound,
      body,
    });
    expect(problems.join('\n')).toContain('status 404 is not documented');
  });
});
