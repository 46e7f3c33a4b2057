/**
 * The matchers of gateway rules, which run on every request of a protected site and take
 * their patterns from site owners. None can backtrack without bound:
 *
 * - paths are a prefix, or a glob whose only wildcard is `*`, matched by a linear scan;
 * - User-Agent and header patterns are regular expressions of a restricted kind, checked when
 *   a rule is saved ({@link checkSafePattern}): no groups, no backreferences or lookaround,
 *   an unbounded quantifier only in an alternative anchored with `^` and at most one there,
 *   few bounded repeats, at most 200 characters. recheck finds every pattern of that kind
 *   safe (linear): an unanchored search never retries a star from every start position;
 * - crawler names are matched as whole tokens of the User-Agent ({@link hasToken}).
 */

/** Longest pattern a rule may hold. */
export const MAX_PATTERN_LENGTH = 200;
/** Headers longer than this are matched on their first this many characters. */
export const MAX_MATCHED_LENGTH = 1024;
const MAX_ALTERNATIVES = 32;
const MAX_BOUNDED_REPEAT = 100;

/** Null when `source` is a pattern of the safe kind; otherwise why it is not. */
export function checkSafePattern(source: string): string | null {
  if (source.length > MAX_PATTERN_LENGTH) return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  let alternatives = 1;
  let unbounded = 0;
  let repeats = 0;
  let atom = false; // the last token can take a quantifier
  let anchored = source.startsWith('^'); // the current alternative starts with ^
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      const n = source[i + 1];
      if (n === undefined) return 'ends with a lone backslash';
      if (/[1-9k]/.test(n)) return 'has a backreference';
      if (n === 'u' || n === 'x' || n === 'c' || n === 'p' || n === 'P') return `uses \\${n}, which is not supported`;
      i++;
      atom = n !== 'b' && n !== 'B';
    } else if (c === '[') {
      let j = i + 1;
      if (source[j] === '^') j++;
      if (source[j] === ']') j++;
      while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
      if (j >= source.length) return 'has an unclosed [ class';
      i = j;
      atom = true;
    } else if (c === '(' || c === ')') {
      return 'has a group: groups are not supported (use | at the top level)';
    } else if (c === '|') {
      if (++alternatives > MAX_ALTERNATIVES) return `has more than ${MAX_ALTERNATIVES} alternatives`;
      anchored = source[i + 1] === '^';
      unbounded = 0;
      repeats = 0;
      atom = false;
    } else if (c === '*' || c === '+' || c === '?' || c === '{') {
      if (!atom) return 'has a quantifier with nothing to repeat (or one after another)';
      let max = c === '?' ? 1 : Infinity;
      if (c === '{') {
        const close = source.indexOf('}', i);
        const body = close < 0 ? '' : source.slice(i + 1, close);
        const m = /^(\d{1,3})(,(\d{0,3}))?$/.exec(body);
        if (!m) return 'has a malformed {m,n} quantifier';
        max = m[2] === undefined ? Number(m[1]) : m[3] ? Number(m[3]) : Infinity;
        if (max < Number(m[1])) return 'has a {m,n} quantifier with n below m';
        i = close;
      }
      if (max === Infinity) {
        if (!anchored) return 'has an unbounded quantifier (*, +, {m,}) in an alternative not starting with ^';
        if (++unbounded > 1) return 'has more than one unbounded quantifier (*, +, {m,}) in one alternative';
      } else if ((repeats += max) > MAX_BOUNDED_REPEAT) {
        return `repeats more than ${MAX_BOUNDED_REPEAT} times in one alternative`;
      }
      if (source[i + 1] === '?') return 'has a lazy quantifier, which is not supported';
      atom = false;
    } else if (c === '^' || c === '$') {
      atom = false;
    } else {
      atom = true;
    }
  }
  try {
    compileSafePattern(source);
  } catch {
    return 'is not a valid regular expression';
  }
  return null;
}

/**
 * Compiles a pattern that {@link checkSafePattern} accepted (case-insensitive). This is the
 * one place the service builds a RegExp from data; test/gateway/patterns.test.ts checks with
 * recheck that accepted patterns are safe and the dangerous ones refused.
 */
export function compileSafePattern(source: string): (text: string) => boolean {
  const re = new RegExp(source, 'i');
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
