/**
 * Name resolution for the analyzer that never waits on libuv's thread pool.
 *
 * `dns.lookup` runs getaddrinfo on the four threads that also serve zlib and file I/O, and a
 * call cannot be cancelled: a page naming hosts in a zone whose name server never answers
 * held every thread for minutes and stalled every other user's reports. Queries here go
 * through c-ares (`dns.promises.Resolver`), which is asynchronous on the event loop; each
 * analysis has its own resolver (so cancelling it ends only its own queries), its own
 * per-query timeout and tries, and a bound on the names it may look up and on the lookups in
 * flight. The hosts file is read by us (c-ares' query functions do not), so names such as
 * `localhost` or a deployment's own entries keep resolving as getaddrinfo would resolve them.
 */
import { promises as dnsPromises } from 'node:dns';
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';

/** One resolved address, as `dns.promises.lookup(host, { all: true })` returns it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to all of its addresses. Rejects with a `code` (ENOTFOUND...) on failure. */
export type LookupFunction = (hostname: string) => Promise<ResolvedAddress[]>;

/** How one analysis resolves names. */
export interface ResolverSettings {
  /** Name servers (`host` or `host:port`); empty means the system's (resolv.conf). */
  servers: readonly string[];
  /** Time c-ares waits for one answer before it tries again, ms. */
  queryTimeoutMs: number;
  /** Tries per name server. */
  tries: number;
  /** Most distinct names one analysis (or one render) may look up. */
  maxNames: number;
  /** Most lookups of one analysis in flight at once. */
  maxInFlight: number;
  /** The hosts file, read by us since c-ares' query functions skip it. */
  hostsFile: string;
}

/** Defaults: the system's servers, 2 s per try, 2 tries, 32 names, 4 in flight. */
export const defaultResolverSettings: Readonly<ResolverSettings> = Object.freeze({
  servers: [],
  queryTimeoutMs: 2000,
  tries: 2,
  maxNames: 32,
  maxInFlight: 4,
  hostsFile: '/etc/hosts',
});

/** A name could not be looked up; `code` as Node's resolver errors (ENOTFOUND, ETIMEOUT, ...). */
export class ResolveError extends Error {
  override name = 'ResolveError';
  readonly code: string;
  constructor(code: string, hostname: string) {
    super(`${code} ${hostname}`);
    this.code = code;
  }
}

interface HostsTable {
  readAt: number;
  entries: Map<string, ResolvedAddress[]>;
}

const hostsTables = new Map<string, Promise<HostsTable>>();
/** The hosts file is read again after this long, so a changed file is seen without a restart. */
const hostsTtlMs = 30_000;

async function readHosts(file: string): Promise<HostsTable> {
  const entries = new Map<string, ResolvedAddress[]>();
  const text = await readFile(file, 'utf8').catch(() => '');
  for (const raw of text.split('\n')) {
    const [address, ...names] = raw.replace(/#.*/, '').trim().split(/\s+/);
    const family = address ? isIP(address.replace(/%.*/, '')) : 0;
    if (!family) continue;
    for (const name of names) {
      const key = name.toLowerCase();
      const list = entries.get(key) ?? [];
      list.push({ address: address.replace(/%.*/, ''), family });
      entries.set(key, list);
    }
  }
  return { readAt: Date.now(), entries };
}

/** The addresses the hosts file gives `hostname`, if any. */
export async function hostsFileAnswer(hostname: string, file: string): Promise<ResolvedAddress[] | undefined> {
  let table = hostsTables.get(file);
  const current = await table;
  if (!current || Date.now() - current.readAt > hostsTtlMs) {
    table = readHosts(file);
    hostsTables.set(file, table);
  }
  return (await table!).entries.get(hostname.replace(/\.$/, '').toLowerCase());
}

function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'ESERVFAIL';
}

/**
 * The resolver of one analysis. {@link lookup} answers like `dns.promises.lookup(name, {all})`;
 * {@link close} cancels whatever is still in flight (its callers get ECANCELLED).
 */
export class AnalysisResolver {
  readonly #settings: ResolverSettings;
  readonly #resolver: dnsPromises.Resolver;
  readonly #names = new Set<string>();
  #inFlight = 0;
  readonly #waiting: Array<() => void> = [];
  #closed = false;

  constructor(settings: ResolverSettings = defaultResolverSettings) {
    this.#settings = settings;
    this.#resolver = new dnsPromises.Resolver({ timeout: settings.queryTimeoutMs, tries: settings.tries });
    if (settings.servers.length > 0) this.#resolver.setServers([...settings.servers]);
  }

  /** Distinct names asked for so far. */
  get names(): number {
    return this.#names.size;
  }

  /**
   * All addresses of `hostname` (A and AAAA; the hosts file first). Rejects with
   * {@link ResolveError}: `ELIMIT` past `maxNames` distinct names, `ENOTFOUND` when neither
   * query has an answer, or the resolver's code (`ETIMEOUT`, `ECANCELLED`, ...).
   */
  async lookup(hostname: string): Promise<ResolvedAddress[]> {
    const name = hostname.replace(/\.$/, '').toLowerCase();
    if (this.#closed) throw new ResolveError('ECANCELLED', name);
    const fromHosts = await hostsFileAnswer(name, this.#settings.hostsFile);
    if (fromHosts) return fromHosts;
    if (!this.#names.has(name)) {
      if (this.#names.size >= this.#settings.maxNames) throw new ResolveError('ELIMIT', name);
      this.#names.add(name);
    }
    await this.#slot();
    try {
      if (this.#closed) throw new ResolveError('ECANCELLED', name);
      const [v4, v6] = await Promise.allSettled([this.#resolver.resolve4(name), this.#resolver.resolve6(name)]);
      const addresses: ResolvedAddress[] = [
        ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
        ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
      ];
      if (addresses.length > 0) return addresses;
      const failure = [v4, v6].find((r): r is PromiseRejectedResult => r.status === 'rejected');
      const code = failure ? codeOf(failure.reason) : 'ENOTFOUND';
      throw new ResolveError(code === 'ENODATA' ? 'ENOTFOUND' : code, name);
    } finally {
      this.#release();
    }
  }

  async #slot(): Promise<void> {
    if (this.#inFlight < this.#settings.maxInFlight) {
      this.#inFlight++;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#inFlight--;
  }

  /** Cancel every query in flight and refuse new ones. */
  close(): void {
    this.#closed = true;
    this.#resolver.cancel();
    for (const wake of this.#waiting.splice(0)) wake();
  }
}
