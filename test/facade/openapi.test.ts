import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validate } from '@readme/openapi-parser';
import { buildRouteTable } from '../../facade/route-table.ts';
import { GATEWAY_AUTH_PATH } from '../../facade/forward-auth.ts';
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
    // The procedures, and the one route the facade serves itself: gateway mode's forward auth.
    const mounted = [
      ...buildRouteTable(appRouter).map((r) => `${r.method} ${r.path}`),
      `GET ${GATEWAY_AUTH_PATH}`,
    ].sort();
    expect(documented).toEqual(mounted);
    expect(mounted).toContain('GET /api/v1/account');
  });

  it('serves the API reference (Swagger UI) from this origin only, under a strict CSP', async () => {
    const res = await fetch(`${server.url}/api/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-eval|unsafe-inline|https?:/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await res.text();
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
    expect(html).not.toMatch(/<script>/i); // no inline script: the CSP would refuse it
    const assets = [...html.matchAll(/(?:src|href)="(\/api\/docs\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets.map((a) => a.split('?')[0]).sort()).toEqual([
      '/api/docs/init.js',
      '/api/docs/swagger-ui-bundle.js',
      '/api/docs/swagger-ui.css',
    ]);
    for (const asset of assets) {
      const a = await fetch(`${server.url}${asset}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(a.status, asset).toBe(200);
      expect(a.headers.get('content-type'), asset).toMatch(
        asset.includes('.css') ? /^text\/css/ : /^application\/javascript/,
      );
      expect(a.headers.get('x-content-type-options')).toBe('nosniff');
      expect(a.headers.get('cache-control')).toContain('immutable');
      expect((await a.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
    const init = await (await fetch(`${server.url}/api/docs/init.js`)).text();
    expect(init).toContain('"/api/openapi.json"');
    expect((await fetch(`${server.url}/api/docs/swagger-ui.js.map`)).status).toBe(404);
  });

  it('writes each response’s error codes as a Markdown list the viewers render as text', async () => {
    const doc = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
    };
    const op = doc.paths['/api/v1/checks'].get;
    const unauthorized = op.responses['401'].description.split('\n');
    expect(unauthorized).toEqual([
      expect.stringMatching(/^- `ERR_API_KEY_MISSING`: /),
      expect.stringMatching(/^- `ERR_API_KEY_INVALID`: /),
    ]);
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, o] of Object.entries(ops)) {
        // Answers in a protocol's shape, not ours: siteverify's verdicts and forward auth's plain reasons.
        if (path.includes('siteverify') || path === GATEWAY_AUTH_PATH) continue;
        for (const [status, r] of Object.entries(o.responses)) {
          if (Number(status) < 400) continue;
          for (const line of r.description.split('\n'))
            expect(line, `${method} ${path} ${status}`).toMatch(/^- `ERR_[A-Z_]+`: \S/);
        }
      }
    }
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
