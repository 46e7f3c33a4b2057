import { validationError } from '../errors.ts';

/**
 * Checks a report URL before any network work: absolute http or https, at most 2048
 * characters once normalised, no credentials. Returns the normalised URL.
 */
export function parseReportUrl(input: string): string {
  const text = input.trim();
  if (!text) throw validationError('url', 'The url field is required.');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw validationError('url', 'The url must be a valid absolute http or https URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw validationError('url', 'The url must use http or https.');
  if (url.username || url.password) throw validationError('url', 'The url must not contain credentials.');
  if (!url.hostname) throw validationError('url', 'The url must name a host.');
  const normalised = url.toString();
  if (normalised.length > 2048) throw validationError('url', 'The url must not be longer than 2048 characters.');
  return normalised;
}
