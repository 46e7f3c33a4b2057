/**
 * The SSRF guard: literal addresses in many notations, names resolving to non-public
 * addresses, redirects and auxiliary fetches towards them, and DNS rebinding. Every refusal
 * happens before a connection is attempted; the only sockets opened go to 127.0.0.1.
 */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { AddressGuard, classifyAddress } from '../../src/analyzer/address-guard.ts';
import { createPinnedAgent } from '../../src/analyzer/dispatcher.ts';
import { analyzeUrl } from '../../src/analyzer/analyze.ts';
import { AnalyzeError } from '../../src/analyzer/errors.ts';
import { defaultAnalyzerOptions } from '../../src/analyzer/options.ts';
import type { LookupFunction } from '../../src/analyzer/resolver.ts';
import { goodPath, goodSite } from './fixtures/pages.ts';
import { startFixtureServer, type FixtureServer } from './fixtures/server.ts';
import { parseTargetUrl } from '../../src/analyzer/address-guard.ts';

const servers: FixtureServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A resolver over a fixed table; anything else is ENOTFOUND. Records every query. */
function tableLookup(table: Record<string, string | string[]>, queries: string[] = []): LookupFunction {
  return async (hostname) => {
    queries.push(hostname);
    const entry = table[hostname];
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return (Array.isArray(entry) ? entry : [entry]).map((address) => ({
      address,
      family: address.includes(':') ? 6 : 4,
    }));
  };
}

const guarded = (lookup?: LookupFunction) => defaultAnalyzerOptions({ allowPrivate: false, lookup });

async function refusal(promise: Promise<unknown>): Promise<AnalyzeError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AnalyzeError);
  expect((err as AnalyzeError).reason).toBe('forbidden_address');
  return err as AnalyzeError;
}

describe('literal addresses are refused with allowPrivate: false', () => {
  const targets: Array<[url: string, kind: RegExp]> = [
    ['http://127.0.0.1/', /loopback/],
    ['http://2130706433/', /loopback/],
    ['http://0177.0.0.1/', /loopback/],
    ['http://127.1/', /loopback/],
    ['http://0x7f.1/', /loopback/],
    ['http://0x7f000001/', /loopback/],
    ['http://017700000001/', /loopback/],
    ['https://127.0.0.1:8443/admin', /loopback/],
    ['http://[::1]/', /loopback/],
    ['http://[::ffff:127.0.0.1]/', /loopback/],
    ['http://[::ffff:7f00:1]:8080/', /loopback/],
    ['http://10.0.0.1/', /private network/],
    ['http://172.16.0.1/', /private network/],
    ['http://172.31.255.254/', /private network/],
    ['http://192.168.1.1/', /private network/],
    ['http://[::ffff:192.168.1.1]/', /private network/],
    ['http://169.254.169.254/latest/meta-data/', /link-local/],
    ['http://[fe80::1]/', /link-local/],
    ['http://100.64.0.1/', /carrier-grade NAT/],
    ['http://224.0.0.1/', /multicast/],
    ['http://[ff02::1]/', /multicast/],
    ['http://0.0.0.0/', /unspecified/],
    ['http://0/', /unspecified/],
    ['http://[::]/', /unspecified/],
    ['http://[fc00::1]/', /private network/],
    ['http://[fd00:ec2::254]/', /private network/],
    ['http://255.255.255.255/', /broadcast/],
    ['http://240.0.0.1/', /reserved/],
    ['http://192.0.2.1/', /reserved/],
    ['http://198.18.0.1/', /reserved/],
    ['http://[64:ff9b::a00:1]/', /non-public address \(rfc6052\)/],
    ['http://[2002:a00:1::]/', /non-public address \(6to4\)/],
    ['http://[::7f00:1]/', /non-public address \(ipv4Compatible\)/],
    ['http://[fec0::1]/', /non-public address/],
  ];
  it.each(targets)('%s', async (url, kind) => {
    const queries: string[] = [];
    const err = await refusal(analyzeUrl(parseTargetUrl(url), guarded(tableLookup({}, queries))));
    expect(err.message).toMatch(kind);
    expect(err.message).toMatch(/^The address .+, which is not allowed\.$/);
    expect(queries).toEqual([]); // literals are never resolved
  });
});

describe('names resolving to non-public addresses are refused', () => {
  const table = {
    'evil.test': '127.0.0.1',
    'metadata.test': '169.254.169.254',
    'intranet.test': '10.1.2.3',
    'v6.test': '::1',
    'mapped.test': '::ffff:192.168.0.10',
    'cgnat.test': '100.100.100.100',
    'mixed.test': ['93.184.216.34', '10.0.0.1'],
  };
  const names: Array<[url: string, message: string]> = [
    ['http://evil.test/', 'The host evil.test does not resolve to an address that can be analyzed.'],
    ['http://metadata.test/latest/', 'The host metadata.test does not resolve to an address that can be analyzed.'],
    ['http://intranet.test/', 'The host intranet.test does not resolve to an address that can be analyzed.'],
    ['http://v6.test/', 'The host v6.test does not resolve to an address that can be analyzed.'],
    ['http://mapped.test/', 'The host mapped.test does not resolve to an address that can be analyzed.'],
    ['http://cgnat.test/', 'The host cgnat.test does not resolve to an address that can be analyzed.'],
    ['http://mixed.test/', 'The host mixed.test does not resolve to an address that can be analyzed.'],
  ];
  it.each(names)('%s', async (url, message) => {
    const err = await refusal(analyzeUrl(parseTargetUrl(url), guarded(tableLookup(table))));
    expect(err.message).toBe(message);
  });

  it.each(['http://localhost/', 'http://LOCALHOST./', 'http://app.localhost:3000/'])(
    '%s (answered locally, no DNS)',
    async (url) => {
      const err = await refusal(analyzeUrl(parseTargetUrl(url), guarded()));
      expect(err.message).toMatch(/^The host [a-z.]+ does not resolve to an address that can be analyzed.$/);
      expect(err.message).not.toMatch(/127\.0\.0\.1|::1|loopback/);
    },
  );
});

describe('redirects and auxiliary fetches are re-checked', () => {
  // public.test resolves to the fixture server on 127.0.0.1, which this policy alone allows.
  async function setup(): Promise<{ server: FixtureServer; options: ReturnType<typeof defaultAnalyzerOptions> }> {
    const routes: Record<string, import('./fixtures/server.ts').FixtureHandler> = {};
    const server = await startFixtureServer(routes);
    servers.push(server);
    const p = server.port;
    const to = (location: string) => ({ status: 302, headers: { location } });
    Object.assign(routes, goodSite(`http://public.test:${p}`), {
      '/to-private': to('http://10.0.0.1/'),
      '/to-metadata': to('http://169.254.169.254/latest/meta-data/iam/'),
      '/to-v6-loopback': to(`http://[::1]:${p}/`),
      '/to-decimal': to(`http://2130706434:${p}/`),
      '/to-evil': to(`http://evil.test:${p}/`),
      '/to-localhost': to(`http://localhost:${p}/`),
      '/to-good': to(goodPath),
    });
    const options = defaultAnalyzerOptions({
      allowPrivate: false,
      lookup: tableLookup({ 'public.test': '127.0.0.1', 'evil.test': '127.0.0.2' }),
      isAllowedAddress: (ip) => ip === '127.0.0.1',
    });
    return { server, options };
  }

  it('the allowed first hop works (control)', async () => {
    const { server, options } = await setup();
    const result = await analyzeUrl(parseTargetUrl(`http://public.test:${server.port}/to-good`), options);
    expect(result.finalUrl).toBe(`http://public.test:${server.port}${goodPath}`);
    expect(result.project).toBe('public.test');
  });

  it.each(['/to-private', '/to-metadata', '/to-v6-loopback', '/to-decimal', '/to-evil', '/to-localhost'])(
    'refuses the hop after %s',
    async (path) => {
      const { server, options } = await setup();
      await refusal(analyzeUrl(parseTargetUrl(`http://public.test:${server.port}${path}`), options));
      expect(server.hits).toEqual([path]);
    },
  );

  it('refuses a Sitemap: URL in robots.txt that points at a private address, without failing the analysis', async () => {
    const { server, options } = await setup();
    const p = server.port;
    const routes = goodSite(`http://public.test:${p}`);
    (routes['/robots.txt'] as { body: string }).body =
      'User-agent: *\nAllow: /\nSitemap: http://169.254.169.254/sitemap.xml\n';
    const site = await startFixtureServer(routes);
    servers.push(site);
    const result = await analyzeUrl(parseTargetUrl(`http://public.test:${site.port}${goodPath}`), options);
    const sitemap = result.results.miscellaneous.find((c) => c.id === 'sitemap')!;
    expect(sitemap.passed).toBe(false);
    expect(sitemap.details[0]).toMatch(/169\.254\.169\.254 is a link-local address/);
  });

  it('a Sitemap: host that resolves inside is refused in the details without naming its address', async () => {
    const { server, options } = await setup();
    const p = server.port;
    const routes = goodSite(`http://public.test:${p}`);
    (routes['/robots.txt'] as { body: string }).body =
      `User-agent: *\nAllow: /\nSitemap: http://evil.test:${p}/sitemap.xml\n`;
    const site = await startFixtureServer(routes);
    servers.push(site);
    const result = await analyzeUrl(parseTargetUrl(`http://public.test:${site.port}${goodPath}`), options);
    const sitemap = result.results.miscellaneous.find((c) => c.id === 'sitemap')!;
    expect(sitemap.passed).toBe(false);
    expect(sitemap.details).toEqual(['The host evil.test does not resolve to an address that can be analyzed.']);
    expect(JSON.stringify(result)).not.toContain('127.0.0.2');
  });
});

describe('DNS rebinding', () => {
  it('resolves each host once per analysis and connects only to the checked address', async () => {
    const routes: Record<string, import('./fixtures/server.ts').FixtureHandler> = {};
    const server = await startFixtureServer(routes);
    servers.push(server);
    Object.assign(routes, goodSite(`http://rebind.test:${server.port}`));
    const queries: string[] = [];
    let answers = 0;
    const lookup: LookupFunction = async (hostname) => {
      queries.push(hostname);
      // First answer passes the check; later answers would point at the metadata service.
      return [{ address: answers++ === 0 ? '127.0.0.1' : '169.254.169.254', family: 4 }];
    };
    const options = defaultAnalyzerOptions({ lookup, isAllowedAddress: (ip) => ip === '127.0.0.1' });
    const result = await analyzeUrl(parseTargetUrl(`http://rebind.test:${server.port}${goodPath}`), options);
    expect(queries).toEqual(['rebind.test']);
    expect(result.status).toBe(200);
    expect(server.hits).toContain('/robots.txt');
    expect(server.hits).toContain('/sitemap-index.xml');
  });

  it('the connector refuses a host the guard has not pinned', async () => {
    const server = await startFixtureServer({ '/': { body: 'hi' } });
    servers.push(server);
    const guard = new AddressGuard({ allowPrivate: true });
    const pinned = createPinnedAgent(guard, { connectTimeoutMs: 1000, totalTimeoutMs: 1000 });
    try {
      const err = await request(`${server.origin}/`, { dispatcher: pinned.agent }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(AnalyzeError);
      expect((err as AnalyzeError).reason).toBe('forbidden_address');
      expect(server.hits).toEqual([]);
    } finally {
      await pinned.close();
    }
  });
});

describe('classifyAddress', () => {
  it.each(['8.8.8.8', '93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001::200e'])(
    'allows public %s',
    (ip) => {
      expect(classifyAddress(ip, false)).toMatchObject({ allowed: true, range: 'unicast' });
    },
  );

  it.each([
    '127.0.0.1',
    '10.0.0.1',
    '172.16.0.1',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '::1',
    'fe80::1',
    'fd00::1',
    '240.0.0.1',
  ])('allowPrivate allows %s', (ip) => {
    expect(classifyAddress(ip, false).allowed).toBe(false);
    expect(classifyAddress(ip, true).allowed).toBe(true);
  });

  it.each(['0.0.0.0', '::', '224.0.0.1', 'ff02::1', '255.255.255.255', 'not-an-ip'])(
    'never allows %s, even with allowPrivate',
    (ip) => {
      expect(classifyAddress(ip, true).allowed).toBe(false);
    },
  );

  it('unwraps IPv4-mapped IPv6', () => {
    expect(classifyAddress('::ffff:7f00:1', false)).toMatchObject({
      address: '127.0.0.1',
      range: 'loopback',
      allowed: false,
    });
    expect(classifyAddress('::ffff:8.8.8.8', false)).toMatchObject({ address: '8.8.8.8', allowed: true });
  });
});
