/**
 * Linear scanners for the few places where checks read raw page text: every function here
 * visits each character a bounded number of times, whatever the input, so a hostile page
 * cannot make them backtrack (the regexes they replace could, exponentially or
 * quadratically).
 */

/** True for the characters JavaScript's `\s` matches. */
export function isSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** The index of the first non-`\s` character at or after `from` (or `text.length`). */
export function skipSpaces(text: string, from: number): number {
  let i = from;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** Whether `text` has `word` (lowercase ASCII) at `at`, ignoring ASCII case. */
export function hasWordAt(text: string, at: number, word: string): boolean {
  if (at + word.length > text.length) return false;
  for (let k = 0; k < word.length; k++) {
    let c = text.charCodeAt(at + k);
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    if (c !== word.charCodeAt(k)) return false;
  }
  return true;
}

/**
 * The `<!DOCTYPE html ...>` declaration the document starts with, after an optional BOM,
 * white space and comments (each comment closed by the first `-->`), or null.
 */
export function leadingDoctype(html: string): string | null {
  let i = html.charCodeAt(0) === 0xfeff ? 1 : 0;
  i = skipSpaces(html, i);
  while (html.startsWith('<!--', i)) {
    const end = html.indexOf('-->', i + 4);
    if (end < 0) return null;
    i = skipSpaces(html, end + 3);
  }
  if (!hasWordAt(html, i, '<!doctype')) return null;
  const afterKeyword = i + '<!doctype'.length;
  const name = skipSpaces(html, afterKeyword);
  if (name === afterKeyword || !hasWordAt(html, name, 'html')) return null;
  const close = html.indexOf('>', name + 4);
  return close < 0 ? null : html.slice(i, close + 1);
}

const Ch = {
  Dot: 0x2e,
  At: 0x40,
} as const;

function isAsciiLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function isAsciiDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** `[A-Za-z0-9_]`: the characters `\b` counts as word characters. */
function isWordChar(c: number): boolean {
  return isAsciiLetter(c) || isAsciiDigit(c) || c === 0x5f;
}

/** `[A-Za-z0-9._%+-]`: characters of an address's local part. */
function isLocalChar(c: number): boolean {
  return isAsciiLetter(c) || isAsciiDigit(c) || c === 0x2e || c === 0x5f || c === 0x25 || c === 0x2b || c === 0x2d;
}

/** `[A-Za-z0-9-]`: characters of a domain label. */
function isLabelChar(c: number): boolean {
  return isAsciiLetter(c) || isAsciiDigit(c) || c === 0x2d;
}

/**
 * The end (exclusive) of the longest domain starting at `start`: labels of `[A-Za-z0-9-]`
 * joined by single dots, ending in a dot and 2-24 ASCII letters followed by a non-word
 * character (or the end). -1 when there is none. Scans forward once, never past the first
 * character that cannot be part of a domain.
 */
function domainEnd(text: string, start: number): number {
  let best = -1;
  let i = start;
  let labelLength = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === Ch.Dot) {
      if (labelLength === 0) break; // an empty label ends every longer candidate
      // A top-level label candidate: letters right after this dot.
      let j = i + 1;
      while (j < text.length && j - i - 1 < 25 && isAsciiLetter(text.charCodeAt(j))) j++;
      const letters = j - i - 1;
      if (letters >= 2 && letters <= 24 && (j >= text.length || !isWordChar(text.charCodeAt(j)))) best = j;
      labelLength = 0;
      continue;
    }
    if (!isLabelChar(c)) break;
    labelLength++;
  }
  return best;
}

/**
 * Every e-mail address in `text`, in order of appearance, with the matches the pattern
 * `[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,24}\b` (global, leftmost,
 * greedy) would give, found in linear time: each `@` looks left over the local part (which
 * cannot contain `@`, so no character is visited twice that way) and right over the domain.
 */
export function findEmailAddresses(text: string): string[] {
  const found: string[] = [];
  let lastEnd = 0;
  let at = text.indexOf('@');
  while (at >= 0) {
    let start = at;
    while (start > lastEnd && isLocalChar(text.charCodeAt(start - 1))) start--;
    const end = start < at ? domainEnd(text, at + 1) : -1;
    if (end > 0) {
      found.push(text.slice(start, end));
      lastEnd = end;
      at = text.indexOf('@', end);
    } else {
      at = text.indexOf('@', at + 1);
    }
  }
  return found;
}

/** `[A-Za-z0-9_.:-]`: characters of a charset label in a `<meta>`. */
function isCharsetChar(c: number): boolean {
  return isAsciiLetter(c) || isAsciiDigit(c) || c === 0x5f || c === 0x2e || c === 0x3a || c === 0x2d;
}

/** The value after `charset` at `at` (`charset = "utf-8"`), or undefined. */
function charsetValueAt(text: string, at: number, end: number): string | undefined {
  let i = skipSpaces(text, at + 'charset'.length);
  if (i >= end || text.charCodeAt(i) !== 0x3d) return undefined; // '='
  i = skipSpaces(text, i + 1);
  const q = text.charCodeAt(i);
  if (q === 0x22 || q === 0x27) i = skipSpaces(text, i + 1);
  const from = i;
  while (i < end && isCharsetChar(text.charCodeAt(i))) i++;
  return i > from ? text.slice(from, i) : undefined;
}

/**
 * The charset a `<meta charset>` or `<meta http-equiv content="...; charset=...">` in
 * `head` declares (the first such tag; within a tag the last `charset=`), or undefined.
 */
export function metaCharset(head: string): string | undefined {
  const lower = head.toLowerCase();
  let tag = lower.indexOf('<meta');
  while (tag >= 0) {
    const close = lower.indexOf('>', tag);
    const end = close < 0 ? lower.length : close;
    let value: string | undefined;
    for (let at = lower.indexOf('charset', tag + 6); at >= 0 && at < end; at = lower.indexOf('charset', at + 1)) {
      value = charsetValueAt(head, at, end) ?? value;
    }
    if (value) return value;
    if (close < 0) return undefined;
    tag = lower.indexOf('<meta', close);
  }
  return undefined;
}

/** Whether a header value shows a version number: `1.2`, or `/` then optional spaces and a digit. */
export function hasVersionNumber(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x2e && i > 0 && isAsciiDigit(value.charCodeAt(i - 1)) && isAsciiDigit(value.charCodeAt(i + 1)))
      return true;
    if (c === 0x2f) {
      const j = skipSpaces(value, i + 1);
      if (isAsciiDigit(value.charCodeAt(j))) return true;
    }
  }
  return false;
}
