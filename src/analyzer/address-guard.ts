/**
 * SSRF guard: URL validation, address classification, and per-analysis host pinning.
 *
 * Every host is resolved once per analysis; all of its addresses must pass the policy, and
 * the first one is pinned. The dispatcher connects to the pinned address only (see
 * dispatcher.ts), so a DNS answer that changes between check and connect (rebinding) is
 * never used.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { abortable } from './abortable.ts';
import { AnalyzeError } from './errors.ts';
import type { LookupFunction, ResolvedAddress } from './resolver.ts';
import { AnalysisResolver, defaultResolverSettings, type ResolverSettings } from './resolver.ts';

/** Longest URL accepted, in characters. */
export const maxUrlLength = 2048;

/** What the policy decided about one address. */
export interface AddressVerdict {
  /** Canonical form (IPv4-mapped IPv6 is unwrapped to IPv4). */
  address: string;
  /** ipaddr.js range name, or "nonGlobal"/"ipv4Compatible"/"invalid" for our extra IPv6 rules. */
  range: string;
  allowed: boolean;
}

/** Ranges refused even with `allowPrivate`: they never name a single host. */
const neverAllowed = new Set(['unspecified', 'multicast', 'broadcast', 'invalid']);

const rangeNames: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private network address',
  uniqueLocal: 'a private network address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
  unspecified: 'an unspecified address',
  reserved: 'a reserved address',
  invalid: 'an invalid address',
};

function describeRange(range: string): string {
  return rangeNames[range] ?? `a non-public address (${range})`;
}

/**
 * Classify `ip` (any textual form ipaddr.js accepts). Public unicast addresses are allowed;
 * with `allowPrivate` everything but unspecified, multicast and broadcast is.
 */
export function classifyAddress(ip: string, allowPrivate: boolean): AddressVerdict {
  if (!ipaddr.isValid(ip)) return { address: ip, range: 'invalid', allowed: false };
  const addr = ipaddr.process(ip);
  let range: string = addr.range();
  if (addr.kind() === 'ipv6' && range === 'unicast') {
    const parts = (addr as ipaddr.IPv6).parts;
    if (parts.slice(0, 6).every((p) => p === 0)) range = 'ipv4Compatible';
    else if ((parts[0] & 0xe000) !== 0x2000) range = 'nonGlobal'; // outside 2000::/3
  }
  const address = addr.toString();
  const allowed = range === 'unicast' || (allowPrivate && !neverAllowed.has(range));
  return { address, range, allowed };
}

declare const validTarget: unique symbol;

/**
 * A URL that {@link parseTargetUrl} accepted. Only that function makes one, so a function that
 * takes a TargetUrl (the analyzer's entry points) never parses or validates it again.
 */
export type TargetUrl = URL & { readonly [validTarget]: true };

/**
 * Parse and validate a URL to fetch: http or https only, at most 2048 characters, with a
 * host. Legacy IPv4 notations (2130706433, 0177.0.0.1, 127.1, 0x7f.1) come out canonical.
 */
export function parseTargetUrl(input: string, base?: URL): TargetUrl {
  if (input.length > maxUrlLength) {
    throw new AnalyzeError('invalid_url', `The URL is longer than ${maxUrlLength} characters.`);
  }
  let url: URL;
  try {
    url = new URL(input.trim(), base);
  } catch {
    throw new AnalyzeError('invalid_url', 'The URL is not a valid absolute URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AnalyzeError(
      'invalid_url',
      `Only http and https URLs can be analyzed, not ${url.protocol.slice(0, -1)}.`,
    );
  }
  if (!url.hostname) throw new AnalyzeError('invalid_url', 'The URL has no host.');
  if (url.href.length > maxUrlLength) {
    throw new AnalyzeError('invalid_url', `The URL is longer than ${maxUrlLength} characters.`);
  }
  if (url.username || url.password) {
    throw new AnalyzeError('invalid_url', 'URLs with embedded credentials are not analyzed.');
  }
  return url as TargetUrl;
}

/** The host of a URL as the connector sees it: lowercase, IPv6 without brackets. */
export function hostKey(hostname: string): string {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return bare.toLowerCase();
}

function notFound(hostname: string): Error {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
}

/**
 * Answers for special-use names (RFC 6761), given before any resolver is asked, so they
 * never reach DNS: `*.invalid` does not exist, `localhost`/`*.localhost` is loopback.
 * Undefined for ordinary names.
 */
export function specialUseAnswer(hostname: string): ResolvedAddress[] | Error | undefined {
  const name = hostname.replace(/\.$/, '').toLowerCase();
  if (name === 'invalid' || name.endsWith('.invalid')) return notFound(hostname);
  if (name === 'localhost' || name.endsWith('.localhost')) {
    return [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ];
  }
  return undefined;
}

/** Settings the guard needs. */
export interface GuardSettings {
  allowPrivate: boolean;
  /** Replaces the analysis' own resolver (tests). */
  lookup?: LookupFunction;
  /** How the analysis' own resolver works (servers, timeouts, name caps). */
  resolver?: ResolverSettings;
  isAllowedAddress?: (address: string) => boolean;
}

/**
 * The one sentence for every name that cannot be analyzed, whether it does not resolve, does
 * not answer in time or resolves inside this server's network: which internal names exist is
 * not the client's to learn. (An IP literal in the URL is named; it is the client's own.)
 */
export function refusedNameMessage(hostname: string): string {
  return `The host ${hostname} does not resolve to an address that can be analyzed.`;
}

/**
 * Resolves, checks and pins hosts for one analysis. When `signal` aborts (the analysis'
 * deadline), lookups in flight are cancelled and every pending {@link pin} rejects.
 */
export class AddressGuard {
  readonly #settings: GuardSettings;
  readonly #pending = new Map<string, Promise<string>>();
  readonly #pinned = new Map<string, string>();
  /** Made on the first name looked up (an analysis of IP literals needs none). */
  #resolver?: AnalysisResolver;
  #closed = false;
  readonly #lookup: LookupFunction;
  readonly #signal?: AbortSignal;

  constructor(settings: GuardSettings, signal?: AbortSignal) {
    this.#settings = settings;
    this.#signal = signal;
    this.#lookup = settings.lookup ?? ((name) => this.#ownResolver().lookup(name));
    signal?.addEventListener('abort', () => this.close(), { once: true });
  }

  #ownResolver(): AnalysisResolver {
    if (!this.#resolver) {
      this.#resolver = new AnalysisResolver(this.#settings.resolver ?? defaultResolverSettings);
      if (this.#closed) this.#resolver.close();
    }
    return this.#resolver;
  }

  /** Cancel lookups in flight; later lookups fail. Idempotent. */
  close(): void {
    this.#closed = true;
    this.#resolver?.close();
  }

  /** Decide one address under this guard's policy. */
  verdict(ip: string): AddressVerdict {
    const verdict = classifyAddress(ip, this.#settings.allowPrivate);
    const override = this.#settings.isAllowedAddress;
    return override ? { ...verdict, allowed: override(verdict.address) } : verdict;
  }

  /**
   * Check the host of `url` and return the address to connect to. Rejects with
   * `forbidden_address` before any connection is made: a refused IP literal is named, and
   * every name that does not resolve, does not answer or resolves to a refused address gets
   * {@link refusedNameMessage}. With `signal` (default: the guard's), rejects with its reason
   * as soon as it aborts.
   */
  pin(url: URL, signal: AbortSignal | undefined = this.#signal): Promise<string> {
    const key = hostKey(url.hostname);
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = this.#resolve(key);
      pending.catch(() => undefined); // observed by every caller
      this.#pending.set(key, pending);
    }
    return abortable(pending, signal);
  }

  /** The address pinned for `hostname`, if {@link pin} succeeded for it. */
  pinned(hostname: string): string | undefined {
    return this.#pinned.get(hostKey(hostname));
  }

  async #resolve(key: string): Promise<string> {
    if (isIP(key)) {
      const verdict = this.verdict(key);
      if (!verdict.allowed) {
        throw new AnalyzeError(
          'forbidden_address',
          `The address ${key} is ${describeRange(verdict.range)}, which is not allowed.`,
        );
      }
      this.#pinned.set(key, key);
      return key;
    }
    let addresses: ResolvedAddress[];
    try {
      const special = specialUseAnswer(key);
      if (special instanceof Error) throw special;
      addresses = special ?? (await this.#lookup(key));
    } catch (err) {
      throw new AnalyzeError('forbidden_address', refusedNameMessage(key), { cause: err });
    }
    if (addresses.length === 0 || addresses.some(({ address }) => !this.verdict(address).allowed)) {
      throw new AnalyzeError('forbidden_address', refusedNameMessage(key));
    }
    const chosen = addresses.find((a) => a.family === 4) ?? addresses[0];
    const address = ipaddr.process(chosen.address).toString();
    this.#pinned.set(key, address);
    return address;
  }
}
