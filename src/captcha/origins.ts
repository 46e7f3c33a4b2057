/**
 * Registered origins: exact `scheme://host[:port]` (default ports dropped, host lowercased)
 * or `scheme://*.domain`, which matches any subdomain of `domain` at any depth but not
 * `domain` itself.
 */

import { TOKEN_LIMITS } from './wire.ts';

export type OriginParse = { ok: true; origin: string } | { ok: false; reason: string };

/**
 * Whether `hostname` fits DNS: at most 253 characters (also what a token's hostname may be,
 * TOKEN_LIMITS), labels of at most 63. The URL parser takes longer names, which no browser
 * can have come from, and a token could not carry them.
 */
function dnsSized(hostname: string): boolean {
  if (hostname.length > TOKEN_LIMITS.hostname) return false;
  // A scan rather than split('.'): this runs on every browser request.
  for (let start = 0; start <= hostname.length;) {
    const dot = hostname.indexOf('.', start);
    const end = dot === -1 ? hostname.length : dot;
    if (end - start > 63) return false;
    start = end + 1;
  }
  return true;
}

/** Normalises an origin for registration; accepts a `*.` wildcard as the first label. */
export function normaliseOrigin(input: string): OriginParse {
  const text = input.trim();
  const wildcard = /^(https?):\/\/\*\.([^/:]+)(:\d+)?\/?$/i.exec(text);
  const candidate = wildcard ? `${wildcard[1]}://${wildcard[2]}${wildcard[3] ?? ''}` : text;
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return { ok: false, reason: `"${input}" is not an origin (scheme://host[:port]).` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, reason: `"${input}" must use http or https.` };
  if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    return { ok: false, reason: `"${input}" must be only scheme://host[:port], with no path.` };
  }
  if (!dnsSized(url.hostname))
    return { ok: false, reason: `"${input.slice(0, 80)}…": the host name is longer than DNS allows.` };
  if (wildcard && !url.hostname.includes('.'))
    return { ok: false, reason: `"${input}": a wildcard needs a domain with a dot.` };
  const origin = url.origin;
  return { ok: true, origin: wildcard ? origin.replace('://', '://*.') : origin };
}

/** Normalises the Origin header of a request; null when absent or not a web origin. */
export function requestOrigin(header: string | undefined): string | null {
  if (!header || header === 'null') return null;
  const parsed = normaliseOrigin(header);
  return parsed.ok && !parsed.origin.includes('*') ? parsed.origin : null;
}

/** Whether a (normalised) request origin is one of the registered ones. */
export function originAllowed(registered: readonly string[], origin: string): boolean {
  for (const entry of registered) {
    if (entry === origin) return true;
    const star = entry.indexOf('://*.');
    if (star === -1) continue;
    const scheme = entry.slice(0, star);
    const rest = entry.slice(star + 5); // domain[:port]
    if (!origin.startsWith(`${scheme}://`)) continue;
    const hostPort = origin.slice(scheme.length + 3);
    if (hostPort.endsWith(`.${rest}`) && hostPort.length > rest.length + 1) return true;
  }
  return false;
}

/** The hostname of an origin, for tokens and verdicts. */
export function hostnameOf(origin: string): string {
  return new URL(origin).hostname;
}
