import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import http from 'node:http';
import { request } from '../helpers/http.ts';
import { v3Token } from '../helpers/captcha.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { createSite } from '../../src/captcha/sites.ts';
import { registerDemoSite, type DemoSite } from '../../src/demo/site.ts';
import { widgetBundle } from '../../src/bundles.ts';

/** A raw GET (fetch would decompress and hide Content-Encoding; undici also forbids setting Host). */
function rawGet(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

describe('GET /widget.js', () => {
  let services: TestServices;
  let server: TestServer;
  beforeAll(async () => {
    services = await openTestServices();
    server = await startTestServer(services);
  });
  afterAll(async () => {
    await server.close();
    await services.cleanup();
  });

  it('serves the bundle gzipped when accepted, with an ETag per encoding and a day of caching', async () => {
    const bundle = await widgetBundle();
    const gz = await rawGet(`${server.url}/widget.js`, { 'Accept-Encoding': 'gzip, br' });
    expect(gz.status).toBe(200);
    expect(gz.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).equals(bundle.code)).toBe(true);
    expect(gz.headers['cache-control']).toBe('public, max-age=86400, stale-while-revalidate=604800');
    expect(gz.headers.vary).toMatch(/Accept-Encoding/);
    expect(gz.headers['access-control-allow-origin']).toBe('*');
    expect(gz.headers['cross-origin-resource-policy']).toBe('cross-origin');

    const plain = await rawGet(`${server.url}/widget.js`, { 'Accept-Encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.equals(bundle.code)).toBe(true);
    expect(plain.headers.etag).toBe(bundle.etag);
    expect(gz.headers.etag).not.toBe(plain.headers.etag);

    const again = await rawGet(`${server.url}/widget.js`, {
      'Accept-Encoding': 'gzip',
      'If-None-Match': gz.headers.etag!,
    });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('caches a versioned URL for good', async () => {
    const { version } = await widgetBundle();
    const res = await rawGet(`${server.url}/widget.js?v=${version}`);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await rawGet(`${server.url}/widget.js?v=000000000000`)).headers['cache-control']).toMatch(
      /^public, max-age=86400/,
    );
  });

  it('GET /demo without a registered demo site says so', async () => {
    const res = await request(`${server.url}/demo`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain('Demo not available');
  });
});

describe('the demo pages', () => {
  let services: TestServices;
  let server: TestServer;
  let demo: DemoSite;
  let port: number;

  beforeAll(async () => {
    services = await openTestServices({ env: { CAPTCHA_ENGINE: 'auto' } });
    server = await startTestServer(services);
    port = server.server.port;
    const { user } = await createKeyedUser(services, 'local');
    const origins = [`http://localhost:${port}`, `http://127.0.0.1:${port}`];
    const { site, secret } = await createSite(services.orm.em.fork(), user.id, { name: 'Demo', origins });
    demo = { sitekey: site.sitekey, secret, origins };
    registerDemoSite(services, demo);
  });
  afterAll(async () => {
    await server.close();
    await services.cleanup();
  });

  it('embeds the widget from the other loopback name, under a CSP a site could copy, without the secret', async () => {
    const { version } = await widgetBundle();
    const res = await rawGet(`${server.url}/demo`, { Host: `localhost:${port}` });
    const html = res.body.toString('utf8');
    expect(res.status).toBe(200);
    expect(html).toContain(`<script src="http://127.0.0.1:${port}/widget.js?v=${version}" async defer></script>`);
    expect(html).toContain(`data-sitekey="${demo.sitekey}"`);
    for (const mode of ['managed', 'explicit', 'invisible']) expect(html).toContain(`data-mode="${mode}"`);
    expect(html).not.toContain(demo.secret);
    expect(html).not.toContain('role="alert"');
    const csp = res.headers['content-security-policy']!;
    expect(csp).toContain(`script-src http://127.0.0.1:${port} 'wasm-unsafe-eval';`);
    expect(csp).toContain(`connect-src http://127.0.0.1:${port};`);
    expect(csp).toContain('img-src blob:; worker-src blob:');

    const other = await rawGet(`${server.url}/demo`, { Host: `127.0.0.1:${port}` });
    expect(other.body.toString('utf8')).toContain(`src="http://localhost:${port}/widget.js`);
  });

  it('tells a visitor on an unregistered host where to go', async () => {
    const res = await rawGet(`${server.url}/demo`, { Host: 'demo.example:8080' });
    const html = res.body.toString('utf8');
    expect(html).toContain('role="alert"');
    expect(html).toContain(`href="http://localhost:${port}/demo"`);
    expect(res.headers['content-security-policy']).not.toContain('demo.example');
  });

  it('POST /demo/verify redeems the token once at siteverify over HTTP and shows the verdict', async () => {
    // What the widget in a page does: the work and the environment answer.
    const issued = await v3Token(server.url, {
      sitekey: demo.sitekey,
      origin: `http://localhost:${port}`,
      action: 'demo_invisible',
      tokenKey: services.config.tokenKey,
    });
    expect(issued.status).toBe(201);
    const form = { mode: 'invisible', name: '<b>Ada</b>', 'ac-response': issued.body.token };
    const first = await request(`${server.url}/demo/verify`, { method: 'POST', form });
    expect(first.status).toBe(200);
    expect(first.text).toContain('<h1 id="verdict" class="ok">Verified</h1>');
    expect(first.text).toContain('<td id="verdict-score"><code>0.9</code></td>');
    expect(first.text).toContain('<td id="verdict-hostname"><code>&quot;localhost&quot;</code></td>');
    expect(first.text).toContain('name &lt;b&gt;Ada&lt;/b&gt;');
    expect(first.text).not.toContain(demo.secret);

    const replay = await request(`${server.url}/demo/verify`, { method: 'POST', form });
    expect(replay.text).toContain('Not verified');
    expect(replay.text).toContain('timeout-or-duplicate');

    const junk = await request(`${server.url}/demo/verify`, {
      method: 'POST',
      form: { mode: 'managed', 'cf-turnstile-response': 'nonsense' },
    });
    expect(junk.text).toContain('invalid-input-response');
    const none = await request(`${server.url}/demo/verify`, { method: 'POST', form: { mode: 'explicit' } });
    expect(none.text).toContain('missing-input-response');
  });
});
