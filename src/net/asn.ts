import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import ipaddr from 'ipaddr.js';

/**
 * The autonomous system an address belongs to, from a dataset of address ranges: by default
 * the `@ip-location-db/asn` package (RouteViews and DB-IP's IP-to-ASN Lite, both CC BY 4.0,
 * rebuilt daily upstream; docs/challenges.md "The network" says how to refresh it), or the
 * CSV files `ASN_DATABASE` names. Each line is `first,last,asn[,name]`, the addresses either
 * as integers (the package's `-num` files) or written out (`127.0.0.2`, `2001:db8::`); a file
 * whose name ends in `.gz` is gzipped (the container image ships the package's files so, without
 * the names: 7 MB instead of 33).
 *
 * Only the numbers are kept: sorted range starts and ends and their AS numbers in arrays
 * (IPv6 by its upper 64 bits, as no routed range is narrower than a /64), about 7 MB for the
 * whole dataset, searched by bisection.
 */

interface Table<T extends bigint | number> {
  starts: T[];
  ends: T[];
  asns: number[];
}

export interface AsnLookup {
  /** The AS number of `ip`, or undefined when no range holds it. */
  asnOf(ip: string): number | undefined;
}

/** The package's two files: every IPv4 and IPv6 range. */
export function packagedAsnFiles(): string[] {
  const dir = path.dirname(createRequire(import.meta.url).resolve('@ip-location-db/asn/package.json'));
  return [path.join(dir, 'asn-ipv4-num.csv'), path.join(dir, 'asn-ipv6-num.csv')];
}

const V6_LOW = 2n ** 64n;

/** An address field as a number: IPv4 as an integer, IPv6 as its upper 64 bits (a bigint). */
function addressKey(field: string): number | bigint | undefined {
  if (/^\d+$/.test(field)) {
    const n = BigInt(field);
    return n < 2n ** 32n ? Number(n) : n / V6_LOW;
  }
  if (!ipaddr.isValid(field)) return undefined;
  const addr = ipaddr.parse(field);
  const bytes = addr.toByteArray();
  if (addr.kind() === 'ipv4') return bytes.reduce((n, b) => n * 256 + b, 0);
  return bytes.slice(0, 8).reduce((n, b) => n * 256n + BigInt(b), 0n);
}

function bisect<T extends bigint | number>(t: Table<T>, key: T): number | undefined {
  let lo = 0;
  let hi = t.starts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (t.starts[mid] > key) hi = mid - 1;
    else if (t.ends[mid] < key) lo = mid + 1;
    else return t.asns[mid];
  }
  return undefined;
}

class AsnDatabase implements AsnLookup {
  constructor(
    private readonly v4: Table<number>,
    private readonly v6: Table<bigint>,
  ) {}

  asnOf(ip: string): number | undefined {
    if (!ipaddr.isValid(ip)) return undefined;
    let addr = ipaddr.parse(ip);
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress())
      addr = (addr as ipaddr.IPv6).toIPv4Address();
    const key = addressKey(addr.toString());
    return typeof key === 'number' ? bisect(this.v4, key) : key === undefined ? undefined : bisect(this.v6, key);
  }
}

const gunzipAsync = promisify(gunzip);
/** Lines parsed between turns of the event loop: the whole dataset held it for 0.4-0.5 s in one go. */
const LINES_A_TURN = 20_000;

/**
 * Reads the CSV files into one lookup; lines that are not `first,last,asn` are skipped. It
 * runs on the first challenge, beside requests in flight, so it yields to them as it goes.
 */
export async function loadAsnDatabase(files: readonly string[]): Promise<AsnLookup> {
  const v4: Table<number> = { starts: [], ends: [], asns: [] };
  const v6: Table<bigint> = { starts: [], ends: [], asns: [] };
  for (const file of files) {
    const raw = await readFile(file);
    const text = (file.endsWith('.gz') ? await gunzipAsync(raw) : raw).toString('utf8');
    for (let at = 0, line = 0; at < text.length; line++) {
      if (line % LINES_A_TURN === LINES_A_TURN - 1) await nextTurn();
      let end = text.indexOf('\n', at);
      if (end < 0) end = text.length;
      const [first, last, asn] = text.slice(at, end).split(',', 3);
      at = end + 1;
      const [a, b, n] = [addressKey(first?.trim() ?? ''), addressKey(last?.trim() ?? ''), Number(asn)];
      if (a === undefined || b === undefined || !Number.isSafeInteger(n) || n <= 0) continue;
      if (typeof a === 'number' && typeof b === 'number') {
        v4.starts.push(a);
        v4.ends.push(b);
        v4.asns.push(n);
      } else if (typeof a === 'bigint' && typeof b === 'bigint') {
        v6.starts.push(a);
        v6.ends.push(b);
        v6.asns.push(n);
      }
    }
  }
  return new AsnDatabase(sorted(v4), sorted(v6));
}

/** The table by range start: the package's files come sorted, and are kept as they are. */
function sorted<T extends bigint | number>(t: Table<T>): Table<T> {
  if (t.starts.every((start, i) => i === 0 || t.starts[i - 1] <= start)) return t;
  const order = t.starts
    .map((_, i) => i)
    .sort((i, j) => (t.starts[i] < t.starts[j] ? -1 : t.starts[i] > t.starts[j] ? 1 : 0));
  return {
    starts: order.map((i) => t.starts[i]),
    ends: order.map((i) => t.ends[i]),
    asns: order.map((i) => t.asns[i]),
  };
}
