import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadAsnDatabase, packagedAsnFiles, type AsnLookup } from './asn.ts';

/**
 * Whether a client address is in a hosting or cloud network: its autonomous system (asn.ts)
 * looked up in the classification the project keeps as data, hosting-asns.csv beside this file (built by
 * scripts/hosting-networks.ts from the dataset's AS names; docs/challenges.md "The network"),
 * with a site's own additions and exemptions over it.
 *
 * A browserless client can make up everything the page reports, but not the address it
 * connects from: renting one on a residential network costs far more than a cloud server.
 */

/** A site's own say over the classification: AS numbers it counts as hosting, and those it never does. */
export interface NetworkRules {
  hosting: number[];
  exempt: number[];
}

export interface NetworkClass {
  asn?: number;
  hosting: boolean;
}

export interface NetworkClassifier {
  classify(ip: string, rules?: NetworkRules | null): Promise<NetworkClass>;
}

/** The shipped classification's file. */
export const HOSTING_ASNS_FILE = fileURLToPath(new URL('./hosting-asns.csv', import.meta.url));

/** AS numbers of a classification file: `asn,name` lines, `#` comments. */
export function readHostingAsns(file: string): Set<number> {
  const out = new Set<number>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const n = Number(line.split(',', 1)[0]);
    if (!line.startsWith('#') && Number.isSafeInteger(n) && n > 0) out.add(n);
  }
  return out;
}

/**
 * A classifier over the ASN dataset `files` (loaded on the first address, in the background of
 * that request: about 0.7 CPU-seconds for the packaged dataset) and the hosting list `hostingFile`.
 * A dataset that cannot be read classifies nothing, and says why once through `warn`.
 */
export function networkClassifier(
  files: readonly string[],
  hostingFile: string,
  warn: (message: string) => void,
): NetworkClassifier {
  const hosting = readHostingAsns(hostingFile);
  let db: Promise<AsnLookup | undefined> | undefined;
  const lookup = () =>
    (db ??= loadAsnDatabase(files).catch((err: unknown) => {
      warn(`the ASN dataset could not be read (${(err as Error).message}): no network counts as hosting`);
      return undefined;
    }));
  return {
    async classify(ip, rules) {
      const asn = (await lookup())?.asnOf(ip);
      if (asn === undefined) return { hosting: false };
      const listed = hosting.has(asn) || (rules?.hosting.includes(asn) ?? false);
      return { asn, hosting: listed && !(rules?.exempt.includes(asn) ?? false) };
    },
  };
}

/** The classifier the configuration asks for: `ASN_DATABASE` (`off`, or CSV files), `HOSTING_ASNS_FILE`. */
export function networkClassifierFrom(
  config: { ASN_DATABASE?: string; HOSTING_ASNS_FILE?: string },
  warn: (message: string) => void,
): NetworkClassifier | undefined {
  if (config.ASN_DATABASE === 'off') return undefined;
  const files = config.ASN_DATABASE ? config.ASN_DATABASE.split(',').map((f) => f.trim()) : packagedAsnFiles();
  return networkClassifier(files, config.HOSTING_ASNS_FILE ?? HOSTING_ASNS_FILE, warn);
}
