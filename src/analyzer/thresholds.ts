/**
 * What the checks compare a page against, and who the analyzer says it is: plain data that the
 * page, the checks and the options all read, so it imports nothing.
 */
/** Limits the checks compare against. All are inclusive bounds. */
export interface Thresholds {
  /** Shortest acceptable <title>, in characters. */
  titleMinLength: number;
  /** Longest acceptable <title>, in characters. */
  titleMaxLength: number;
  /** Most in-page links (<a href>) before the page counts as a link farm. */
  maxLinks: number;
  /** Slowest acceptable page fetch (first request to last body byte, redirects included), ms. */
  maxLoadTimeMs: number;
  /** Largest acceptable decoded HTML document, bytes. */
  maxPageSizeBytes: number;
  /** Most referenced sub-resources (scripts, stylesheets, images, frames, media...). */
  maxRequests: number;
  /** Most DOM elements. */
  maxDomNodes: number;
  /** Fewest words of visible text. */
  minWords: number;
  /** Smallest visible-text to HTML size ratio, in percent. */
  minTextHtmlRatio: number;
  /** Longest URL still considered SEO friendly, in characters. */
  maxUrlLength: number;
}

/** The default thresholds. */
export const defaultThresholds: Readonly<Thresholds> = Object.freeze({
  titleMinLength: 1,
  titleMaxLength: 60,
  maxLinks: 150,
  maxLoadTimeMs: 2000,
  maxPageSizeBytes: 330 * 1024,
  maxRequests: 50,
  maxDomNodes: 1500,
  minWords: 500,
  minTextHtmlRatio: 10,
  maxUrlLength: 100,
});

/** Default User-Agent. */
export const defaultUserAgent = 'Mozilla/5.0 (compatible; WebsiteAnalyzer/1.0; +https://github.com/auditcaptcha)';

/** The robots.txt agent token in a User-Agent ("...compatible; WebsiteAnalyzer/1.0..." gives "WebsiteAnalyzer"). */
export function robotsAgentToken(userAgent: string): string {
  const compatible = /compatible;\s*([A-Za-z0-9_-]+)/.exec(userAgent);
  if (compatible) return compatible[1];
  const first = /^([A-Za-z0-9_-]+)/.exec(userAgent.trim());
  return first ? first[1] : '*';
}
