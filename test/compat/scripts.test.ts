/**
 * The compatibility scripts as served: at the providers' paths, gzip, at most 16 KB each
 * (measured on the bytes sent), from one engine (each bundle holds widget.js's code once).
 */
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestServices, startTestServer, type TestServer, type TestServices } from '../helpers/services.ts';
import { PROVIDERS, providerBundle } from '../../shared/providers.ts';
import { bundleNamed } from '../../src/bundles.ts';

// 12 KB until the engine carried its built-in languages (de, es, fr, nl: about 1.4 KB gzip).
const LIMIT = 16 * 1024;

let services: TestServices;
let server: TestServer;
beforeAll(async () => {
  services = await openTestServices();
  server = await startTestServer(services);
});
afterAll(async () => {
  await server?.close();
  await services?.cleanup();
});

/** A raw GET (fetch would decompress and hide the size on the wire). */
function get(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${server.url}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

describe('compatibility scripts', () => {
  const paths = PROVIDERS.flatMap((s) => s.scripts.map((p) => [s.name, p] as const));

  it.each(paths)('%s at %s: JavaScript, gzip, at most 16 KB on the wire', async (_name, path) => {
    const res = await get(path, { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    console.log(`${path}: ${res.body.length} bytes gzip, ${gunzipSync(res.body).length} bytes plain`);
    expect(res.body.length).toBeLessThanOrEqual(LIMIT);
    const again = await get(path, { 'Accept-Encoding': 'gzip', 'If-None-Match': String(res.headers.etag) });
    expect(again.status).toBe(304);
  });

  it('each bundle is at most 16 KB gzip and defines its provider global over window.auditcaptcha', async () => {
    for (const script of PROVIDERS) {
      const b = await bundleNamed(providerBundle(script));
      expect(b.gzip.length, script.name).toBeLessThanOrEqual(LIMIT);
      const code = b.code.toString();
      expect(code).toContain('auditcaptcha');
    }
  });

  it('plain when gzip is not accepted', async () => {
    const res = await get('/turnstile/v0/api.js', { 'Accept-Encoding': 'identity' });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body.toString()).toContain('turnstile');
  });
});
