import ipaddr from 'ipaddr.js';

/** A parsed CIDR block: an address and its prefix length. */
export type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * Parses one `address/prefix` (or a bare address, taken as a single host). IPv4-mapped IPv6
 * blocks are kept as written; {@link inNetworks} compares addresses in their plain form.
 * Returns null for anything else.
 */
export function parseCidr(text: string): Cidr | null {
  const t = text.trim();
  try {
    if (t.includes('/')) return ipaddr.parseCIDR(t);
    const addr = ipaddr.parse(t);
    return [addr, addr.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return null;
  }
}

/** An address in its plain form (IPv4-mapped IPv6 as IPv4), or null when it is not one. */
export function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  try {
    const addr = ipaddr.parse(text.trim());
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress())
      return (addr as ipaddr.IPv6).toIPv4Address();
    return addr;
  } catch {
    return null;
  }
}

/** Whether `addr` lies in one of `blocks` (an IPv4 address never matches an IPv6 block). */
export function inNetworks(addr: ipaddr.IPv4 | ipaddr.IPv6 | null, blocks: readonly Cidr[]): boolean {
  if (!addr) return false;
  for (const [net, bits] of blocks) {
    if (net.kind() === addr.kind() && addr.match(net, bits)) return true;
    if (net.kind() === 'ipv6' && addr.kind() === 'ipv4' && (net as ipaddr.IPv6).isIPv4MappedAddress()) {
      if (bits >= 96 && addr.match((net as ipaddr.IPv6).toIPv4Address(), bits - 96)) return true;
    }
  }
  return false;
}

/** Parses a comma-separated CIDR list; the first bad entry is returned as `bad`. */
export function parseCidrList(text: string): { blocks: Cidr[] } | { bad: string } {
  const blocks: Cidr[] = [];
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const block = parseCidr(part);
    if (!block) return { bad: part };
    blocks.push(block);
  }
  return { blocks };
}
