import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { loadAsnDatabase, packagedAsnFiles } from '../../src/net/asn.ts';
import { HOSTING_ASNS_FILE, networkClassifier, readHostingAsns } from '../../src/net/hosting.ts';

const LOOPBACK_ASN = fileURLToPath(new URL('../adversary/loopback-asn.csv', import.meta.url));
const dir = mkdtempSync(path.join(os.tmpdir(), 'asn-'));
const write = (name: string, text: string | Buffer) => {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
};

describe('the ASN dataset', () => {
  it('reads ranges written out or as integers, IPv4 and IPv6, and skips what is not a range', async () => {
    const file = write(
      'mixed.csv',
      [
        '192.0.2.0,192.0.2.255,64500,Example', // out of order: sorted on reading
        '16777216,16777471,13335,"Cloudflare, Inc."', // 1.0.0.0/24 as integers
        '2001:db8::,2001:db8:0:ffff:ffff:ffff:ffff:ffff,64501,Example v6',
        '42540766411283801782723599580828532736,42540766411285010708543214210003238911,64502,v6 as integers',
        'not,a,range',
        '',
      ].join('\n'),
    );
    const db = await loadAsnDatabase([file]);
    expect(db.asnOf('1.0.0.77')).toBe(13335);
    expect(db.asnOf('192.0.2.9')).toBe(64500);
    expect(db.asnOf('::ffff:192.0.2.9')).toBe(64500);
    expect(db.asnOf('2001:db8::42')).toBe(64501);
    expect(db.asnOf('2001:db8:0:ffff::1')).toBe(64501);
    expect(db.asnOf('2001:db8:1::1')).toBe(64502);
    expect(db.asnOf('198.51.100.1')).toBeUndefined();
    expect(db.asnOf('not an address')).toBeUndefined();
  });

  it('reads a gzipped file as the image ships the package’s: the numbers alone, gzipped', async () => {
    const [v4] = packagedAsnFiles();
    // The first 2,000 ranges, cut to first,last,asn as the Containerfile cuts them.
    const lines = readFileSync(v4, 'utf8').split('\n').slice(0, 2000);
    const cut = lines.map((l) => l.split(',').slice(0, 3).join(',')).join('\n');
    const db = await loadAsnDatabase([write('v4-num.csv.gz', gzipSync(cut))]);
    const [first, , asn] = lines[1000].split(',');
    const address = [24, 16, 8, 0].map((shift) => (Number(first) >>> shift) & 255).join('.');
    expect(db.asnOf(address)).toBe(Number(asn));
  });

  it('ships with the package: well-known clouds are where the registry says', { timeout: 60_000 }, async () => {
    const db = await loadAsnDatabase(packagedAsnFiles());
    expect(db.asnOf('8.8.8.8')).toBe(15169);
    expect(db.asnOf('138.68.1.1')).toBe(14061);
    expect(db.asnOf('2001:4860:4860::8888')).toBe(15169);
  });
});

describe('hosting networks', () => {
  it("the shipped list holds the clouds and leaves out Private Relay's carriers", () => {
    const hosting = readHostingAsns(HOSTING_ASNS_FILE);
    for (const cloud of [16509, 15169, 8075, 14061, 24940, 16276]) expect(hosting.has(cloud)).toBe(true);
    for (const relay of [13335, 36183, 54113]) expect(hosting.has(relay)).toBe(false);
    expect(hosting.size).toBeGreaterThan(500);
  });

  it("classifies by the list, with a site's additions and exemptions over it", async () => {
    const warnings: string[] = [];
    const nets = networkClassifier([LOOPBACK_ASN], HOSTING_ASNS_FILE, (m) => warnings.push(m));
    expect(await nets.classify('127.0.0.1')).toEqual({ asn: 64496, hosting: false });
    expect(await nets.classify('127.0.0.2')).toEqual({ asn: 14061, hosting: true });
    expect(await nets.classify('127.0.0.3', { hosting: [64497], exempt: [] })).toEqual({ asn: 64497, hosting: true });
    expect(await nets.classify('127.0.0.2', { hosting: [], exempt: [14061] })).toEqual({ asn: 14061, hosting: false });
    expect(await nets.classify('10.0.0.1')).toEqual({ hosting: false });
    expect(warnings).toEqual([]);
  });

  it('a dataset that cannot be read classifies nothing and says so once', async () => {
    const warnings: string[] = [];
    const nets = networkClassifier([path.join(dir, 'missing.csv')], HOSTING_ASNS_FILE, (m) => warnings.push(m));
    expect(await nets.classify('127.0.0.2')).toEqual({ hosting: false });
    expect(await nets.classify('127.0.0.2')).toEqual({ hosting: false });
    expect(warnings).toHaveLength(1);
  });
});
