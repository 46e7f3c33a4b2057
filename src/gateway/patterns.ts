import { LRUCache } from 'lru-cache';
import { RE2JS } from 're2js';

/**
 * The matchers of gateway rules, which run on every request of a protected site and take
 * their patterns from site owners. None can take more than linear time:
 *
 * - paths are a prefix, or a glob whose only wildcard is `*`, matched by a linear scan;
 * - User-Agent and header patterns are regular expressions in RE2's syntax, matched by re2js
 *   (a port of RE2's automata: time linear in the header's length whatever the pattern, so
 *   no pattern a site owner saves can hold the event loop); a pattern RE2 cannot compile
 *   (backreferences, lookaround) is refused when the rule is saved;
 * - crawler names are matched as whole tokens of the User-Agent ({@link hasToken}).
 */

/** Longest pattern a rule may hold. */
export const MAX_PATTERN_LENGTH = 200;
/** Headers longer than this are matched on their first this many characters. */
export const MAX_MATCHED_LENGTH = 1024;

/** Null when RE2 compiles `source` (at most {@link MAX_PATTERN_LENGTH} characters); otherwise why not. */
export function checkSafePattern(source: string): string | null {
  if (source.length > MAX_PATTERN_LENGTH) return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  try {
    RE2JS.compile(source, RE2JS.CASE_INSENSITIVE);
  } catch (err) {
    // re2js says "error parsing regexp: <what>: `<where>`".
    const why = err instanceof Error ? err.message.replace(/^error parsing regexp: /, '') : 'is not valid';
    return `is not a regular expression RE2 accepts (${why.slice(0, 120)})`;
  }
  return null;
}

/**
 * Compiles a pattern that {@link checkSafePattern} accepted, case-insensitive, as a search
 * anywhere in the first {@link MAX_MATCHED_LENGTH} characters of the text. This is the one
 * place the service builds a matcher from a site owner's pattern.
 */
export function compileSafePattern(source: string): (text: string) => boolean {
  const re = RE2JS.compile(source, RE2JS.CASE_INSENSITIVE);
  return (text) => re.test(text.length > MAX_MATCHED_LENGTH ? text.slice(0, MAX_MATCHED_LENGTH) : text);
}

/** Null when `pattern` is a usable path pattern: starts with `/`, at most 200 characters. */
export function checkPathPattern(pattern: string): string | null {
  if (!pattern.startsWith('/')) return 'must start with /';
  if (pattern.length > MAX_PATTERN_LENGTH) return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  if (/[\s?#]/.test(pattern)) return 'may not hold spaces, ? or #';
  return null;
}

/**
 * A path matcher: without `*` a prefix (`/blog` matches `/blog`, `/blog/x` and `/blogs`);
 * with `*` a glob over the whole path, `*` standing for any run of characters (slashes too).
 * Leftmost matching of each literal piece is exact for this kind of glob, so it never
 * backtracks.
 */
export function compilePathPattern(pattern: string): (path: string) => boolean {
  if (!pattern.includes('*')) return (path) => path.startsWith(pattern);
  const pieces = pattern.split('*');
  const first = pieces[0];
  const last = pieces[pieces.length - 1];
  const middle = pieces.slice(1, -1).filter(Boolean);
  return (path) => {
    if (path.length < first.length + last.length) return false;
    if (!path.startsWith(first) || !path.endsWith(last)) return false;
    let at = first.length;
    const end = path.length - last.length;
    for (const piece of middle) {
      const found = path.indexOf(piece, at);
      if (found < 0 || found + piece.length > end) return false;
      at = found + piece.length;
    }
    return true;
  };
}

function isWordChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/**
 * Whether `lowerUa` (already lower-cased) holds `lowerToken` as a whole token: not preceded
 * or followed by a letter or digit (`GPTBot/1.0` holds `gptbot`; `Baiduspider` does not hold
 * `spider`).
 */
export function hasToken(lowerUa: string, lowerToken: string): boolean {
  let from = 0;
  for (;;) {
    const at = lowerUa.indexOf(lowerToken, from);
    if (at < 0) return false;
    const before = at === 0 ? 0 : lowerUa.charCodeAt(at - 1);
    const afterAt = at + lowerToken.length;
    const after = afterAt >= lowerUa.length ? 0 : lowerUa.charCodeAt(afterAt);
    if (!isWordChar(before) && !isWordChar(after)) return true;
    from = at + 1;
  }
}

/** User-Agents whose {@link anyTokenMatcher} answers are kept, per matcher (at most 2,000 × 512 characters). */
const TOKEN_ANSWERS_KEPT = 2_000;
const TOKEN_ANSWER_MAX_LENGTH = 512;

/**
 * {@link hasToken} for a whole list at once: whether `lowerUa` holds any of `lowerTokens` as a
 * whole token. One RE2 expression of the quoted literals between non-word characters or the
 * ends, matched by re2js like every pattern here: linear in the header's length.
 */
export function anyTokenMatcher(lowerTokens: readonly string[]): (lowerUa: string) => boolean {
  const alternatives = lowerTokens.map((t) => RE2JS.quote(t)).join('|');
  const re = RE2JS.compile(`(?:^|[^0-9A-Za-z])(?:${alternatives})(?:[^0-9A-Za-z]|$)`);
  // A browser sends one User-Agent with every page and asset, so the answer is kept per text:
  // re2js's pass over a browser's User-Agent was a third of a gateway check. Bounded in
  // entries and in the length of the texts kept; others are matched every time.
  const answers = new LRUCache<string, boolean>({ max: TOKEN_ANSWERS_KEPT });
  return (lowerUa) => {
    if (lowerUa.length > TOKEN_ANSWER_MAX_LENGTH) return re.test(lowerUa);
    let held = answers.get(lowerUa);
    if (held === undefined) answers.set(lowerUa, (held = re.test(lowerUa)));
    return held;
  };
}
