/**
 * The request target a proxy will serve, as the gateway decides on it. nginx and Caddy both
 * decode percent-escapes, merge repeated slashes and resolve `.` and `..` before they pick a
 * file or an upstream; a decision on the raw text (`/.auditcaptcha/../secret.html`,
 * `/api/../admin`, `/%61dmin`) is a decision about another page. So every rule, preset, the
 * prefix's own pages and the clearance read the one canonical path built here, and a target
 * that could be read two ways is refused rather than guessed.
 */

/** A target the gateway can decide on: the path the proxy serves and the query apart. */
export interface CanonicalTarget {
  ok: true;
  /** Decoded, slashes merged, dot segments resolved; starts with `/`. */
  path: string;
  /** The query without its `?` (as sent, still encoded), or '' when there is none. */
  query: string;
  /**
   * The readings of the path a decision must hold for: the path itself and, where a segment
   * carries `;` parameters (which Java and some other servers strip before routing), the path
   * without them. An allow holds only when it holds for every reading; a deny, challenge or
   * weight applies when it applies to any.
   */
  readings: readonly string[];
}

export type TargetResult = CanonicalTarget | { ok: false; reason: string };

/** Longest raw target read (nginx's default large header buffer is 8 KB). */
export const MAX_TARGET_LENGTH = 8192;

const utf8 = new TextDecoder('utf-8', { fatal: true });

function refuse(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 0x20;
  if (lower >= 97 && lower <= 102) return lower - 87;
  return -1;
}

/**
 * Percent-decodes `raw` once (as nginx does for `$uri`), refusing what has no single reading:
 * an encoded `/`, `\` or NUL (the proxy and an application behind it may split the path at
 * different places), a raw backslash or control character, a `%` not followed by two hex
 * digits, an escape that decodes to another escape (double encoding: an application that
 * decodes again sees another path), and bytes that are not valid UTF-8 (overlong forms of `.`
 * and `/` among them).
 */
function decodePath(raw: string): string | { reason: string } {
  if (!raw.includes('%')) {
    for (let i = 0; i < raw.length; i++) {
      const c = raw.charCodeAt(i);
      if (c < 0x20 || c === 0x7f) return { reason: 'holds a control character' };
      if (c === 0x5c) return { reason: 'holds a backslash' };
      if (c > 0x7f) return decodeBytes(Buffer.from(raw, 'latin1'));
    }
    return raw;
  }
  // Node hands header values over as latin1: each char is one byte of the request line.
  const bytes = Buffer.alloc(raw.length);
  let n = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c > 0xff) return { reason: 'is not a byte string' };
    if (c !== 0x25) {
      bytes[n++] = c;
      continue;
    }
    const hi = hexValue(raw.charCodeAt(i + 1));
    const lo = hexValue(raw.charCodeAt(i + 2));
    if (hi < 0 || lo < 0) return { reason: 'holds a % that is not an escape' };
    const value = hi * 16 + lo;
    if (value === 0x2f) return { reason: 'holds an encoded /' };
    if (value === 0x5c) return { reason: 'holds an encoded backslash' };
    if (value === 0x25 && hexValue(raw.charCodeAt(i + 3)) >= 0 && hexValue(raw.charCodeAt(i + 4)) >= 0)
      return { reason: 'is encoded twice' };
    bytes[n++] = value;
    i += 2;
  }
  return decodeBytes(bytes.subarray(0, n));
}

function decodeBytes(bytes: Buffer): string | { reason: string } {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { reason: 'is not valid UTF-8' };
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return { reason: 'holds a control character' };
    if (c === 0x5c) return { reason: 'holds a backslash' };
  }
  return text;
}

/**
 * Merges repeated slashes (nginx's `merge_slashes on`, the default) and resolves `.` and `..`
 * segments (RFC 3986 section 5.2.4), in that order as nginx does; null for a `..` above the
 * root, which nginx answers with 400.
 */
function resolveSegments(path: string): string | null {
  const out: string[] = [];
  const segments = path.split('/');
  // segments[0] is '' (the path starts with '/'); a trailing '' keeps the trailing slash.
  for (let i = 1; i < segments.length; i++) {
    const s = segments[i];
    const last = i === segments.length - 1;
    if (s === '' && !last) continue;
    if (s === '.') {
      if (last) out.push('');
      continue;
    }
    if (s === '..') {
      if (out.length === 0) return null;
      out.pop();
      if (last) out.push('');
      continue;
    }
    out.push(s);
  }
  return `/${out.join('/')}`;
}

/** The path without `;` parameters in any segment (`/a;x=1/b;y` is `/a/b`), or null when it has none. */
function withoutParameters(path: string): string | null {
  if (!path.includes(';')) return null;
  return path
    .split('/')
    .map((s) => {
      const semi = s.indexOf(';');
      return semi < 0 ? s : s.slice(0, semi);
    })
    .join('/');
}

/**
 * The canonical form of a request target as a proxy forwarded it (`X-Original-URI`,
 * `X-Forwarded-Uri`): origin-form `/path?query`, or absolute-form `http://host/path?query`
 * (whose path is taken; the host is the proxy's to check). The fragment, which a browser never
 * sends but a raw client may, is dropped as nginx drops it.
 */
export function canonicalTarget(raw: string): TargetResult {
  if (raw.length === 0) return refuse('is empty');
  if (raw.length > MAX_TARGET_LENGTH) return refuse(`is longer than ${MAX_TARGET_LENGTH} characters`);
  let text = raw;
  const hash = text.indexOf('#');
  if (hash >= 0) text = text.slice(0, hash);
  const scheme = /^https?:\/\//i.exec(text);
  if (scheme) {
    const slash = text.indexOf('/', scheme[0].length);
    const question = text.indexOf('?', scheme[0].length);
    if (slash < 0 || (question >= 0 && question < slash)) text = `/${question >= 0 ? text.slice(question) : ''}`;
    else text = text.slice(slash);
  }
  if (!text.startsWith('/')) return refuse('does not start with /');
  const q = text.indexOf('?');
  const rawPath = q < 0 ? text : text.slice(0, q);
  const query = q < 0 ? '' : text.slice(q + 1);
  const decoded = decodePath(rawPath);
  if (typeof decoded !== 'string') return refuse(decoded.reason);
  const path = resolveSegments(decoded);
  if (path === null) return refuse('climbs above the root with ..');
  const bare = withoutParameters(path);
  let readings: string[] = [path];
  if (bare !== null) {
    const resolved = resolveSegments(bare);
    if (resolved === null) return refuse('climbs above the root with ..');
    if (resolved !== path) readings = [path, resolved];
  }
  return { ok: true, path, query, readings };
}

/** Path and query of a canonical target, encoded again, to return to after the challenge. */
export function targetUri(t: CanonicalTarget): string {
  const path = encodeURI(t.path).replaceAll('?', '%3F').replaceAll('#', '%23');
  return t.query ? `${path}?${t.query}` : path;
}
