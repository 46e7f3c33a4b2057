import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';

/**
 * Who a per-address count counts. An IPv6 customer is handed a whole /64 (often more), so
 * counting each IPv6 address would let one customer take 2^64 budgets: IPv6 clients are
 * counted by their /64, IPv4 clients by their address. IPv4-mapped IPv6 addresses
 * (`::ffff:192.0.2.1`) count as the IPv4 address they carry.
 *
 * {@link networkKey} is the wider neighbourhood the velocity evidence also counts: the IPv4
 * /24 or the IPv6 /64.
 */

function parse(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const unbracketed = ip.trim().replace(/^\[|\]$/g, '');
  // Drop an IPv6 zone (`fe80::1%eth0`).
  const zone = unbracketed.indexOf('%');
  const bare = zone === -1 ? unbracketed : unbracketed.slice(0, zone);
  if (!ipaddr.isValid(bare)) return null;
  const addr = ipaddr.parse(bare);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress())
    return (addr as ipaddr.IPv6).toIPv4Address();
  return addr;
}

/** The /64 of an IPv6 address, as `2001:db8:1:2::/64`. */
function prefix64(addr: ipaddr.IPv6): string {
  const parts = addr.parts.slice(0, 4).concat([0, 0, 0, 0]);
  return `${new ipaddr.IPv6(parts).toString()}/64`;
}

/** Both keys of one address, as {@link clientKey} and {@link networkKey} give them. */
interface AddressKeys {
  client: string;
  network: string;
}

/**
 * Keys of recently seen addresses. A request asks for them several times (its route's limit,
 * the challenge evidence), and parsing an address is a visible part of a challenge creation's CPU.
 */
const recent = new LRUCache<string, AddressKeys>({ max: 10_000 });

/**
 * A dotted-quad IPv4 address in canonical form (no leading zeros, each octet at most 255),
 * the first three octets captured: what a proxy or Node's socket hands us for IPv4 clients.
 */
const canonicalIPv4 =
  /^((?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){2}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d))\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

function keysOf(ip: string): AddressKeys {
  // The common case without parsing or the cache (each new address would cost a parse, a
  // cache insert and an eviction). The keys are
  // what computeKeys makes of the same address.
  const quad = canonicalIPv4.exec(ip);
  if (quad) return { client: ip, network: `${quad[1]}.0/24` };
  let keys = recent.get(ip);
  if (!keys) {
    keys = computeKeys(ip);
    recent.set(ip, keys);
  }
  return keys;
}

function computeKeys(ip: string): AddressKeys {
  const addr = parse(ip);
  if (!addr) return { client: ip, network: ip };
  if (addr.kind() === 'ipv6') {
    const net = prefix64(addr as ipaddr.IPv6);
    return { client: net, network: net };
  }
  const o = (addr as ipaddr.IPv4).octets;
  return { client: addr.toString(), network: `${o[0]}.${o[1]}.${o[2]}.0/24` };
}

/**
 * The key a per-address limit counts under: the IPv4 address itself, or the IPv6 /64.
 * Anything unparseable is used as given (so it still counts, just alone).
 */
export function clientKey(ip: string): string {
  return keysOf(ip).client;
}

/** The network a velocity counts under: the IPv4 /24 (`192.0.2.0/24`) or the IPv6 /64. */
export function networkKey(ip: string): string {
  return keysOf(ip).network;
}

/**
 * The widest neighbourhood the velocity evidence counts: the IPv4 /16 or the IPv6 /48 (a site
 * handed to one customer), so one holder of many /24s or /64s is still counted as one.
 */
export function wideNetworkKey(ip: string): string {
  const addr = parse(ip);
  if (!addr) return ip;
  if (addr.kind() === 'ipv4') {
    const o = (addr as ipaddr.IPv4).octets;
    return `${o[0]}.${o[1]}.0.0/16`;
  }
  const parts = (addr as ipaddr.IPv6).parts.slice(0, 3).concat([0, 0, 0, 0, 0]);
  return `${new ipaddr.IPv6(parts).toString()}/48`;
}
