/**
 * GATEWAY_TRUSTED_PROXIES: forwarded headers from any other peer are not believed (the
 * endpoint answers 403 and reads nothing of them), and a bad block stops the start with a
 * message naming the variable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { readOriginal, TrustedProxies } from '../../src/gateway/forwarded.ts';
import { parseCidrList, type Cidr } from '../../src/gateway/networks.ts';
import { openTestServices, startTestServer, type TestServer, type TestServices } from '../helpers/services.ts';
import { rawGet } from './proxies.ts';

describe('a caller outside GATEWAY_TRUSTED_PROXIES', () => {
  let services: TestServices;
  let server: TestServer;
  beforeAll(async () => {
    services = await openTestServices({ env: { GATEWAY_TRUSTED_PROXIES: '10.0.0.0/8' } });
    server = await startTestServer(services);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await services?.cleanup();
  });

  it('gets a 403, its forwarded headers unread', async () => {
    const res = await rawGet(`${server.url}/api/v1/gateway/auth/caddy`, {
      'X-Forwarded-Host': 'protected.test',
      'X-Forwarded-For': '66.249.66.1',
      'Sec-Fetch-Mode': 'navigate',
    });
    expect(res.status).toBe(403);
    expect(res.headers['x-gateway-rule']).toBe('untrusted-proxy');
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
  });
});

describe('reading the original request', () => {
  const trusted = new TrustedProxies((parseCidrList('127.0.0.0/8,::1/128') as { blocks: Cidr[] }).blocks);

  it('takes the rightmost address that is not a trusted proxy, and the first forwarded host', () => {
    const o = readOriginal(
      '::ffff:127.0.0.1',
      {
        'x-forwarded-for': '6.6.6.6, 198.51.100.7, 127.0.0.2',
        'x-forwarded-host': 'Shop.Example:8443, other.example',
        'x-forwarded-uri': '/a?b=1',
        'x-forwarded-method': 'post',
        'x-forwarded-proto': 'https',
      },
      { method: 'GET', url: '/api/v1/gateway/auth/caddy' },
      trusted,
      'caddy',
    );
    expect(o).toMatchObject({
      trusted: true,
      ip: '198.51.100.7',
      host: 'shop.example',
      target: { ok: true, path: '/a', query: 'b=1' },
      method: 'POST',
      proto: 'https',
    });
  });

  it("reads only its protocol's headers for the method and target", () => {
    const headers = {
      'x-forwarded-uri': '/feed.xml',
      'x-forwarded-method': 'GET',
      'x-original-uri': '/secret.html',
      'x-original-method': 'POST',
    };
    const own = { method: 'GET', url: '/api/v1/gateway/auth/x' };
    const nginx = readOriginal('127.0.0.1', headers, own, trusted, 'nginx');
    expect(nginx).toMatchObject({ method: 'POST', target: { ok: true, path: '/secret.html' } });
    for (const protocol of ['caddy', 'traefik'] as const)
      expect(readOriginal('127.0.0.1', headers, own, trusted, protocol)).toMatchObject({
        method: 'GET',
        target: { ok: true, path: '/feed.xml' },
      });
    // A call without its protocol's headers has no target to decide on.
    expect(readOriginal('127.0.0.1', { 'x-forwarded-uri': '/feed.xml' }, own, trusted, 'nginx').target.ok).toBe(false);
  });

  it('ignores forwarded headers from an untrusted peer', () => {
    const o = readOriginal(
      '203.0.113.5',
      { 'x-forwarded-for': '1.2.3.4', host: 'h.example' },
      { method: 'GET', url: '/x' },
      trusted,
    );
    expect(o).toMatchObject({ trusted: false, ip: '203.0.113.5', host: 'h.example', target: { path: '/x' } });
  });

  it('refuses a bad block at start, naming the variable', () => {
    expect(() => loadConfig({ GATEWAY_TRUSTED_PROXIES: '127.0.0.1/8,not-a-block' })).toThrow(ConfigError);
    expect(() => loadConfig({ GATEWAY_TRUSTED_PROXIES: '10.0.0.0/33' })).toThrow(/GATEWAY_TRUSTED_PROXIES/);
  });
});
