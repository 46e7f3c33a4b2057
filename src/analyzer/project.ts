/**
 * The project a page belongs to. On its own, with no imports: the audits' routes use it at
 * start, and analyze.ts (which loads the checks, cheerio and the rest of the engine) is loaded
 * only on a service's first analysis.
 */

/** The project of a page: its host name (no port), lowercased, without a leading "www.". */
export function projectOf(url: URL): string {
  return url.hostname.toLowerCase().replace(/^www\./, '');
}
