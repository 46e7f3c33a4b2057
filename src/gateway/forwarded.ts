import { LRUCache } from 'lru-cache';
import type { Cidr } from './networks.ts';
import { inNetworks, parseAddress } from './networks.ts';
import { canonicalTarget, type TargetResult } from './target.ts';

/** Request headers as Node gives them (lower-case names). */
export type Headers = Record<string, string | string[] | undefined>;

/**
 * The proxy protocols forward auth speaks. Each names the headers that carry the original
 * request; the endpoint's path says which one its proxy speaks (`/api/v1/gateway/auth/nginx`),
 * so a client's own copy of another protocol's headers is never read.
 */
export const PROXY_PROTOCOLS = ['nginx', 'caddy', 'traefik'] as const;
export type ProxyProtocol = (typeof PROXY_PROTOCOLS)[number];

/** The headers of the original method and target, per protocol (nginx: set in its config; Caddy and Traefik: set by the proxy itself). */
const TARGET_HEADERS: Record<ProxyProtocol, { method: string; uri: string }> = {
  nginx: { method: 'x-original-method', uri: 'x-original-uri' },
  caddy: { method: 'x-forwarded-method', uri: 'x-forwarded-uri' },
  traefik: { method: 'x-forwarded-method', uri: 'x-forwarded-uri' },
};

/** The original request a proxy asks about, as far as the proxy is believed. */
export interface OriginalRequest {
  /** Whether the peer is a trusted proxy (only then are the forwarded headers used). */
  trusted: boolean;
  method: string;
  /** Lower-case host name without the port. */
  host: string;
  /** The path the proxy serves and the query, or why the target has no single reading. */
  target: TargetResult;
  /** The client's address (plain form), or the peer's when untrusted. */
  ip: string;
  proto: 'http' | 'https';
}

export function one(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** `host[:port]` or `[v6]:port` to the lower-case host alone. */
export function hostOnly(text: string): string {
  const t = text.trim().toLowerCase();
  if (t.startsWith('[')) return t.slice(1, t.indexOf(']') > 0 ? t.indexOf(']') : undefined);
  const colon = t.indexOf(':');
  return colon >= 0 && t.indexOf(':', colon + 1) < 0 ? t.slice(0, colon) : t;
}

/** An address as the gateway reads it: its plain form, and whether it is a trusted proxy's. */
interface AddressReading {
  plain: string;
  trusted: boolean;
}

/** Addresses kept read: the proxies and the clients behind them that one instance sees at once. */
const READINGS_KEPT = 10_000;

/**
 * GATEWAY_TRUSTED_PROXIES, and the addresses read against them: a proxy asks from the same
 * few addresses about the same clients' requests, so each address text is parsed once (an
 * address parse was the largest part of reading a request) and kept, bounded, by its text.
 */
export class TrustedProxies {
  private readonly readings = new LRUCache<string, AddressReading>({ max: READINGS_KEPT });

  constructor(private readonly blocks: readonly Cidr[]) {}

  /** `text` read as an address (see {@link parseAddress}), or null when it is not one. */
  read(text: string): AddressReading | null {
    const known = this.readings.get(text);
    if (known) return known;
    const addr = parseAddress(text);
    if (!addr) return null;
    const reading = { plain: addr.toString(), trusted: inNetworks(addr, this.blocks) };
    this.readings.set(text, reading);
    return reading;
  }
}

/**
 * The client behind the proxies: walking X-Forwarded-For from the right, the first address that
 * is not itself a trusted proxy (entries a client wrote further left are never believed).
 */
function clientAddress(xff: string | undefined, peer: string, proxies: TrustedProxies): string {
  if (!xff) return peer;
  const hops = xff.split(',');
  for (let i = hops.length - 1; i >= 0; i--) {
    const addr = proxies.read(hops[i].trim());
    if (!addr) return peer;
    if (i === 0 || !addr.trusted) return addr.plain;
  }
  return peer;
}

/**
 * Reads the original request, believing forwarded headers only when the peer lies in
 * GATEWAY_TRUSTED_PROXIES. For a forward-auth call (`protocol` set) the method and target come
 * from that protocol's headers alone, and a call without them has no target; for a request
 * the proxy passed on to us (`/.auditcaptcha/...`) they are the request's own. The host, the
 * scheme and the client's address come from X-Forwarded-Host/-Proto/-For, which every
 * documented configuration sets (nginx to fixed values, Caddy and Traefik themselves).
 */
export function readOriginal(
  peer: string,
  headers: Headers,
  own: { method: string; url: string },
  proxies: TrustedProxies,
  protocol?: ProxyProtocol,
): OriginalRequest {
  const peerAddr = proxies.read(peer);
  const plainPeer = peerAddr?.plain ?? peer;
  const isTrusted = peerAddr?.trusted ?? false;
  const h = (name: string) => (isTrusted ? one(headers, name) : undefined);
  const names = protocol ? TARGET_HEADERS[protocol] : undefined;
  const method = ((names ? h(names.method) : own.method) ?? '').toUpperCase();
  const uriText = names ? h(names.uri) : own.url;
  // A chain of proxies may list several values: the first is the client's.
  const first = (v: string | undefined) => v?.split(',')[0].trim();
  const host = hostOnly(first(h('x-forwarded-host')) ?? one(headers, 'host') ?? '');
  const proto = first(h('x-forwarded-proto')) === 'https' ? 'https' : 'http';
  return {
    trusted: isTrusted,
    method,
    host,
    target:
      uriText === undefined
        ? { ok: false, reason: `is missing: the proxy sent no ${names?.uri ?? 'target'} header` }
        : canonicalTarget(uriText),
    ip: isTrusted ? clientAddress(one(headers, 'x-forwarded-for'), plainPeer, proxies) : plainPeer,
    proto,
  };
}

/**
 * Whether the request is a top-level navigation: `Sec-Fetch-Mode: navigate` where the browser
 * sends it; otherwise (older browsers, scripts) a GET or HEAD whose Accept names text/html.
 */
export function isNavigation(method: string, headers: Headers): boolean {
  const mode = one(headers, 'sec-fetch-mode');
  if (mode) return mode === 'navigate';
  if (method !== 'GET' && method !== 'HEAD') return false;
  return (one(headers, 'accept') ?? '').toLowerCase().includes('text/html');
}
