import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AnalysisResolver, ResolveError, defaultResolverSettings } from '../../src/analyzer/resolver.ts';
import { AddressGuard } from '../../src/analyzer/address-guard.ts';
import { AnalyzeError } from '../../src/analyzer/errors.ts';
import { startTestNameServer, type TestNameServer } from '../helpers/dns-server.ts';

let ns: TestNameServer;
let hostsFile: string;

beforeAll(async () => {
  ns = await startTestNameServer({
    stallZone: 'stall.test',
    records: { 'public.ok.test': '93.184.216.34', 'inside.ok.test': '10.1.2.3' },
  });
  hostsFile = path.join(await mkdtemp(path.join(tmpdir(), 'hosts-')), 'hosts');
  await writeFile(hostsFile, '127.0.0.1 localhost\n10.9.9.9 intranet.example # a comment\n');
});
afterAll(() => ns.close());

const settings = (over: Partial<typeof defaultResolverSettings> = {}) => ({
  ...defaultResolverSettings,
  servers: [ns.address],
  queryTimeoutMs: 100,
  tries: 1,
  hostsFile,
  ...over,
});

async function codeOf(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ResolveError);
  return (err as ResolveError).code;
}

describe('AnalysisResolver', () => {
  it('answers A records from the configured name server and names from the hosts file', async () => {
    const r = new AnalysisResolver(settings());
    expect(await r.lookup('public.ok.test')).toEqual([{ address: '93.184.216.34', family: 4 }]);
    expect(await r.lookup('INTRANET.example.')).toEqual([{ address: '10.9.9.9', family: 4 }]);
    expect(await codeOf(r.lookup('missing.ok.test'))).toBe('ENOTFOUND');
    r.close();
  });

  it('gives up on a name server that never answers by its own timeout', async () => {
    const r = new AnalysisResolver(settings());
    expect(await codeOf(r.lookup('a.stall.test'))).toBe('ETIMEOUT');
    expect(ns.stalledQueries).toBeGreaterThan(0);
    r.close();
  });

  it('close() cancels lookups in flight and those still waiting for a slot', async () => {
    const r = new AnalysisResolver(settings({ queryTimeoutMs: 30_000, tries: 3, maxInFlight: 2 }));
    const pending = ['a', 'b', 'c', 'd'].map((n) => codeOf(r.lookup(`${n}.stall.test`)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    r.close();
    expect(await Promise.all(pending)).toEqual(['ECANCELLED', 'ECANCELLED', 'ECANCELLED', 'ECANCELLED']);
  });

  it('refuses names past the cap of distinct names (a name asked again is not counted twice)', async () => {
    const r = new AnalysisResolver(settings({ maxNames: 2 }));
    await r.lookup('public.ok.test');
    await r.lookup('public.ok.test');
    await codeOf(r.lookup('missing.ok.test'));
    expect(await codeOf(r.lookup('third.ok.test'))).toBe('ELIMIT');
    r.close();
  });
});

describe('AddressGuard with its own resolver', () => {
  const guard = (signal?: AbortSignal) =>
    new AddressGuard({ allowPrivate: false, resolver: settings({ queryTimeoutMs: 30_000, tries: 3 }) }, signal);

  it('says the same sentence for a name that does not exist, one that resolves inside and one that never answers', async () => {
    const messages: string[] = [];
    for (const host of ['missing.ok.test', 'inside.ok.test', 'x.stall.test']) {
      // The resolver's own timeout, not the deadline, ends the stalled name here.
      const g = new AddressGuard({ allowPrivate: false, resolver: settings() });
      const err = await g.pin(new URL(`http://${host}/`)).catch((e: unknown) => e);
      g.close();
      expect(err).toBeInstanceOf(AnalyzeError);
      expect((err as AnalyzeError).reason).toBe('forbidden_address');
      messages.push((err as AnalyzeError).message.replace(host, 'HOST'));
    }
    expect(new Set(messages).size).toBe(1);
  });

  it('an aborted deadline ends a pending pin at once', async () => {
    const controller = new AbortController();
    const g = guard(controller.signal);
    const pending = g.pin(new URL('http://y.stall.test/')).catch((e: unknown) => e);
    controller.abort(new Error('deadline'));
    expect(((await pending) as Error).message).toBe('deadline');
  });
});
