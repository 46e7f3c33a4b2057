/**
 * A crawler check is bounded as a whole: a PTR record listing four names under a crawler's
 * domain, each of whose forward lookups answers (with another address) just inside the
 * per-query timeout, is not verified after one timeout, not after one per name (four PTR names
 * at 0.9 s each once made a 4.6 s check).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CrawlerVerifier, SEARCH_CRAWLERS } from '../../src/gateway/crawlers.ts';
import { startTestNameServer, type TestNameServer } from '../helpers/dns-server.ts';

const NAMES = ['a', 'b', 'c', 'd'].map((l) => `${l}.slow.googlebot.com`);
let ns: TestNameServer;
beforeAll(async () => {
  ns = await startTestNameServer({
    stallZone: 'stall.invalid',
    slowZone: 'slow.googlebot.com',
    slowMs: 250,
    ptr: { '9.66.249.66.in-addr.arpa': NAMES },
    records: Object.fromEntries(NAMES.map((n) => [n, '192.0.2.9'])),
  });
});
afterAll(async () => {
  await ns?.close();
});

it('answers within one timeout however many names the PTR record lists', async () => {
  const verifier = new CrawlerVerifier({ servers: [ns.address], timeoutMs: 400 });
  const googlebot = SEARCH_CRAWLERS.find((c) => c.name === 'googlebot')!;
  expect(await verifier.verify(googlebot, '66.249.66.9')).toBe(false);
  // The verdict came while the forward lookups were still being asked one by one: at most
  // the second of four had been sent (one per-query timeout per name would have sent all four).
  expect(ns.slowQueries).toBeLessThanOrEqual(2);
});
