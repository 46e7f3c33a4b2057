/**
 * The network a token comes from, through the real routes: the tests' own ASN dataset maps
 * loopback addresses to networks (127.0.0.1 residential, 127.0.0.2 a hosting network,
 * 127.0.0.3 an office network that is not), a site adds and exempts networks with
 * `sites.update`, and one browser at a machine's pace on one network pays for it.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTRPCClient, httpLink } from '@trpc/client';
import type { AppRouter } from '../../routers/root.ts';
import {
  createKeyedUser,
  openTestServices,
  startTestServer,
  type TestServer,
  type TestServices,
} from '../helpers/services.ts';
import { browser, PERSON_TELEMETRY, siteverify, v3Token } from '../helpers/captcha.ts';
import { request } from '../helpers/http.ts';

const LOOPBACK_ASN = fileURLToPath(new URL('../adversary/loopback-asn.csv', import.meta.url));
const ORIGIN = 'https://shop.example';
let services: TestServices;
let server: TestServer;
let api: ReturnType<typeof createTRPCClient<AppRouter>>;

beforeAll(async () => {
  services = await openTestServices({
    env: { TRUST_PROXY: 'true', CAPTCHA_ENGINE: 'auto', ASN_DATABASE: LOOPBACK_ASN },
  });
  server = await startTestServer(services);
  const { key } = await createKeyedUser(services, 'networks');
  api = createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${server.url}/trpc`, headers: { Authorization: `Bearer ${key}` } })],
  });
  await services.engineReference?.warm();
}, 120_000);
afterAll(async () => {
  await server?.close();
  await services?.cleanup();
});

async function site(security_level: 'low' | 'default' = 'default') {
  const { data } = await api.sites.create.mutate({ name: 'Shop', origins: [ORIGIN], min_score: 0, security_level });
  return data;
}

/** A v3 token from `ip` with a person's page, and what siteverify says of it. */
async function scored(s: { sitekey: string; secret: string }, ip: string, telemetry: object = PERSON_TELEMETRY) {
  const res = await v3Token(server.url, {
    sitekey: s.sitekey,
    origin: ORIGIN,
    ip,
    telemetry,
    tokenKey: services.config.tokenKey,
  });
  expect(res.status).toBe(201);
  return (await siteverify(server.url, { secret: s.secret, response: res.body.token as string })).body as {
    score: number;
    reasons: string[];
  };
}

describe('the network a token comes from', () => {
  it('a hosting network costs 0.6; the site may add networks and exempt them', { timeout: 60_000 }, async () => {
    const s = await site();
    expect(s.networks).toBeNull();
    expect(await scored(s, '127.0.0.1')).toMatchObject({ score: 0.9 });
    const hosted = await scored(s, '127.0.0.2');
    expect(hosted.score).toBe(0.3);
    expect(hosted.reasons).toContain('hosting_network');
    expect((await scored(s, '127.0.0.3')).score).toBe(0.9);

    const changed = await api.sites.update.mutate({
      sitekey: s.sitekey,
      networks: { hosting: [64497], exempt: [14061] },
    });
    expect(changed.data.networks).toEqual({ hosting: [64497], exempt: [14061] });
    expect((await scored(s, '127.0.0.3')).reasons).toContain('hosting_network');
    expect((await scored(s, '127.0.0.2')).score).toBe(0.9);

    await api.sites.update.mutate({ sitekey: s.sitekey, networks: null });
    expect((await scored(s, '127.0.0.2')).score).toBe(0.3);
  });

  it('refuses AS numbers that are not numbers of an AS (a 400, as any bad input on /trpc)', async () => {
    const s = await site();
    for (const hosting of [[0], [-1], [2 ** 32], [1.5]]) {
      const err = await api.sites.update.mutate({ sitekey: s.sitekey, networks: { hosting, exempt: [] } }).then(
        () => null,
        (e: unknown) => e as { data?: { httpStatus?: number } },
      );
      expect(err?.data?.httpStatus, JSON.stringify(hosting)).toBe(400);
    }
  });
});

describe('one browser at a machine’s pace', () => {
  it(
    'past 30 challenges an hour from one network, its tokens say browser_rate_high and cost more work',
    { timeout: 180_000 },
    async () => {
      // The low level keeps the work of an hour's pace asked within a minute short.
      const s = await site('low');
      // One browser behind one /24 (a NAT's many addresses: no one address's own pace counts).
      const ip = (i: number) => `127.0.0.${10 + i}`;
      const ask = (i: number) =>
        request(`${server.url}/api/v3/challenges`, {
          method: 'POST',
          headers: browser(ORIGIN, ip(i)),
          json: { sitekey: s.sitekey, action: 'login', telemetry: PERSON_TELEMETRY },
        });
      const calm = (await ask(0)).body.challenge.bits as number;
      // 30 challenges in all (the one above and 29 more), then the 31st comes with the token.
      for (let i = 1; i < 30; i++) expect((await ask(i)).status).toBe(201);
      const verdict = await scored(s, ip(31));
      expect(verdict.reasons).toContain('browser_rate_high');
      expect(verdict.score).toBeLessThanOrEqual(0.7);
      const later = (await ask(32)).body.challenge.bits as number;
      console.log(`one browser on one /24: ${calm} bits at first, ${later} after 32 challenges`);
      expect(later).toBeGreaterThan(calm);
      // Another browser on the same network is not that one.
      const other = { ...PERSON_TELEMETRY, screen_width: 2560, screen_height: 1440 };
      expect((await scored(s, ip(33), other)).reasons).not.toContain('browser_rate_high');
    },
  );
});
