/**
 * Rebuilds src/net/hosting-asns.csv, the hosting and cloud networks the score weighs
 * (src/net/hosting.ts), from the AS names of the installed `@ip-location-db/asn` dataset (DB-IP's
 * names, CC BY 4.0): the clouds and hosts named in {@link KNOWN} by number, and every AS whose
 * name says it hosts servers ({@link HOSTING_NAME}), less {@link NOT_HOSTING}. An operator runs it
 * after updating the dataset (docs/challenges.md "The network"):
 *
 *   npm update @ip-location-db/asn && npx tsx scripts/hosting-networks.ts [out.csv]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { packagedAsnFiles } from '../src/net/asn.ts';

/** Clouds, hosts and VPN exits by AS number, whatever their names say. */
export const KNOWN: Record<number, string> = {
  16509: 'Amazon AWS',
  14618: 'Amazon AWS',
  8987: 'Amazon AWS',
  15169: 'Google',
  396982: 'Google Cloud',
  19527: 'Google',
  8075: 'Microsoft Azure',
  8068: 'Microsoft',
  8069: 'Microsoft',
  14061: 'DigitalOcean',
  63949: 'Akamai Linode',
  20473: 'Vultr (Choopa)',
  16276: 'OVH',
  24940: 'Hetzner',
  213230: 'Hetzner Cloud',
  51167: 'Contabo',
  40021: 'Contabo',
  12876: 'Scaleway',
  60781: 'Leaseweb',
  16265: 'Leaseweb',
  28753: 'Leaseweb',
  30633: 'Leaseweb',
  59253: 'Leaseweb',
  45102: 'Alibaba Cloud',
  37963: 'Alibaba Cloud',
  132203: 'Tencent Cloud',
  45090: 'Tencent Cloud',
  31898: 'Oracle Cloud',
  36351: 'IBM SoftLayer',
  47583: 'Hostinger',
  9009: 'M247',
  60068: 'Datacamp (CDN77)',
  199524: 'G-Core Labs',
  40676: 'Psychz',
  8100: 'QuadraNet',
  36352: 'ColoCrossing',
  54290: 'Hostwinds',
  23470: 'ReliableSite',
  197540: 'netcup',
  8560: 'IONOS',
  49505: 'Selectel',
  9123: 'Timeweb',
  200350: 'Yandex Cloud',
  63473: 'HostHatch',
  53667: 'FranTech (BuyVM)',
  7979: 'Servers.com',
  21859: 'Zenlayer',
  22612: 'Namecheap',
  46606: 'Unified Layer',
  26496: 'GoDaddy',
  398101: 'GoDaddy',
  62567: 'DigitalOcean',
  393406: 'DigitalOcean',
  135340: 'DigitalOcean',
  212238: 'Datacamp',
};

/** Networks a name rule would take that carry people: relays of Apple's Private Relay, carriers' clouds. */
export const NOT_HOSTING = new Set([13335, 36183, 54113]);

/** A name that says the network hosts servers. */
export const HOSTING_NAME =
  /\b(hosting|hoster|web ?host|servers?|server farm|data ?cent(er|re)s?|datacenter|colo(cation)?|vps|dedicated|cloud (computing|services|infrastructure|hosting))\b/i;

export function hostingNetworks(files: readonly string[]): Map<number, string> {
  const out = new Map<number, string>();
  for (const [asn, name] of Object.entries(KNOWN)) out.set(Number(asn), name);
  for (const file of files) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const m = /^[^,]*,[^,]*,(\d+),"?(.*?)"?$/.exec(line);
      if (m && HOSTING_NAME.test(m[2])) out.set(Number(m[1]), m[2].replace(/[\r\n,"]/g, ' ').trim());
    }
  }
  for (const asn of NOT_HOSTING) out.delete(asn);
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const target = process.argv[2] ?? new URL('../src/net/hosting-asns.csv', import.meta.url).pathname;
  const nets = [...hostingNetworks(packagedAsnFiles())].sort((a, b) => a[0] - b[0]);
  const header = '# asn,name: hosting and cloud networks (scripts/hosting-networks.ts; names from DB-IP, CC BY 4.0)';
  writeFileSync(target, [header, ...nets.map(([asn, name]) => `${asn},${name}`)].join('\n') + '\n');
  console.log(`${nets.length} networks written to ${target}`);
}
