import { AnalyzeError } from '../analyzer/errors.ts';
import { parseTargetUrl, type TargetUrl } from '../analyzer/address-guard.ts';
import { validationError } from '../errors.ts';

/**
 * The one URL rule of reports: the analyzer's own parser (absolute http or https, a host, no
 * credentials, at most 2048 characters), run before any network work. Its refusals become a
 * 422 on `url` with `reason: "invalid_url"`, the analyzer's vocabulary. Returns the URL, parsed
 * once: the analyzer takes it as it is.
 */
export function parseReportUrl(input: string): TargetUrl {
  if (!input.trim()) throw validationError('url', 'The url field is required.', { reason: 'invalid_url' });
  try {
    return parseTargetUrl(input);
  } catch (err) {
    if (err instanceof AnalyzeError) throw validationError('url', err.message, { reason: err.reason });
    throw err;
  }
}

/**
 * A URL as phpRank stores it in `url`: without the scheme, without a leading `www.`, and
 * without the slash of a bare root path (`https://www.example.com/` is `example.com`).
 */
export function storedUrl(href: string): string {
  const rest = href.replace(/^https?:\/\//i, '').replace(/^www\./i, '');
  return /^[^/?#]*\/$/.test(rest) ? rest.slice(0, -1) : rest;
}

/** A search term read the way `url` is stored, so a pasted full address still matches. */
export function storedUrlSearch(term: string): string {
  return term.replace(/^https?:\/\//i, '').replace(/^www\./i, '');
}
