import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { keyObject } from './subkeys.ts';
import { TOKEN_LIMITS } from './wire.ts';
import { SCORE_REASONS } from './risk.ts';

/**
 * Sealed verification tokens: the claims a widget earned, encrypted and authenticated with
 * AES-256-GCM so the service can hand them to the browser and read them back at siteverify
 * time without storing anything until then.
 *
 * Wire format (base64url, no padding): `version (1 byte) | IV (12 bytes) | ciphertext | tag (16 bytes)`.
 * The plaintext is a compact JSON array of the claims; the associated data is a fixed context
 * string plus the version byte, so a ciphertext made for another purpose under the same key
 * does not open here.
 */

/** How long a token stays redeemable after issue. */
export const TOKEN_TTL_MS = 300_000;

/** Upper bound on the length of a sealed token, in characters. */
export const MAX_TOKEN_LENGTH = 2048;

export type TokenKind = 'v1' | 'v2' | 'v3';

/** What a token asserts. */
export interface TokenClaims {
  /** Random 16 bytes, base64url: the token's identity for exactly-once redemption. */
  id: string;
  /** Sitekey the token was issued for. */
  site: string;
  /** Hostname of the page the widget ran on. */
  hostname: string;
  /** Issue time, unix ms. */
  iat: number;
  kind: TokenKind;
  action: string | null;
  /** 0..1 with two decimals; null when the flow gives no score. */
  score: number | null;
  cdata: string | null;
  /**
   * The network the token was solved from (IPv4 /24 or IPv6 /64, as net/client-key.ts's
   * networkKey gives it), so siteverify can check the visitor the site names in `remoteip`.
   * Null in tokens sealed before the field existed.
   */
  net: string | null;
  /**
   * The reasons that set the score (risk.ts), shown by siteverify. Empty in tokens sealed
   * before the field existed and in test sitekeys' tokens.
   */
  reasons: string[];
}

export type OpenTokenResult = { ok: true; claims: TokenClaims } | { ok: false; reason: 'malformed' | 'tampered' };

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const AAD = Buffer.from('auditcaptcha/token\u0000v1', 'utf8');
const base64url = /^[A-Za-z0-9_-]+$/;
const idPattern = /^[A-Za-z0-9_-]{22}$/;
/** Printable ASCII only: keeps the JSON escaping, and so the token size, bounded. */
const printable = /^[\x20-\x7e]*$/;
const kinds: readonly TokenKind[] = ['v1', 'v2', 'v3'];

/** A fresh random token id (16 bytes, base64url). */
export function newTokenId(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * Encrypts `claims` under `key` (32 bytes). Throws on a wrong key size or on claims outside
 * the bounds (non-printable or oversize strings, score outside 0..1, bad id): those are
 * programming errors, since the service builds the claims itself.
 */
export function sealToken(claims: TokenClaims, key: Buffer): string {
  checkKey(key);
  validateClaims(claims);
  const score = claims.score === null ? null : Math.round(claims.score * 100) / 100;
  const plaintext = Buffer.from(
    JSON.stringify([
      claims.id,
      claims.site,
      claims.hostname,
      claims.iat,
      claims.kind,
      claims.action,
      score,
      claims.cdata,
      claims.net,
      reasonBits(claims.reasons),
    ]),
    'utf8',
  );
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyObject(key), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(AAD);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  const token = Buffer.concat([Buffer.from([VERSION]), iv, body, cipher.getAuthTag()]).toString('base64url');
  if (token.length > MAX_TOKEN_LENGTH)
    throw new RangeError(`sealed token is ${token.length} characters; the limit is ${MAX_TOKEN_LENGTH}`);
  return token;
}

/**
 * Decrypts and authenticates a token. Never throws on the token's content: anything not
 * shaped like a token of this version is `malformed`; anything that fails authentication
 * (wrong key, altered bytes) is `tampered`. A wrong key *size* still throws (configuration).
 */
export function openToken(token: string, key: Buffer): OpenTokenResult {
  checkKey(key);
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH || !base64url.test(token))
    return { ok: false, reason: 'malformed' };
  const raw = Buffer.from(token, 'base64url');
  // Reject non-canonical encodings (stray trailing bits), so one token has one spelling.
  if (raw.length < 1 + IV_BYTES + TAG_BYTES + 2 || !canonicalBase64url(token))
    return { ok: false, reason: 'malformed' };
  if (raw[0] !== VERSION) return { ok: false, reason: 'malformed' };
  const iv = raw.subarray(1, 1 + IV_BYTES);
  const tag = raw.subarray(raw.length - TAG_BYTES);
  const body = raw.subarray(1 + IV_BYTES, raw.length - TAG_BYTES);
  let plaintext: Buffer;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyObject(key), iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(AAD);
    decipher.setAuthTag(tag);
    const head = decipher.update(body);
    const tail = decipher.final(); // empty for GCM, which streams; checks the tag
    plaintext = tail.length ? Buffer.concat([head, tail]) : head;
  } catch {
    return { ok: false, reason: 'tampered' };
  }
  const claims = parseClaims(plaintext);
  return claims ? { ok: true, claims } : { ok: false, reason: 'malformed' };
}

/** True once `now` (unix ms) is {@link TOKEN_TTL_MS} or more past the token's issue time. */
export function isExpired(claims: Pick<TokenClaims, 'iat'>, now: number): boolean {
  return now - claims.iat >= TOKEN_TTL_MS;
}

/** Value of each base64url character (the caller has checked the alphabet). */
const base64urlValue = new Int8Array(128).fill(-1);
for (const [i, c] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'].entries()) {
  base64urlValue[c.charCodeAt(0)] = i;
}

/**
 * Whether unpadded base64url `text` is the one spelling of its bytes: no length that leaves
 * a lone character, and no stray bits in the last character (what re-encoding the decoded
 * bytes and comparing would tell, without making the string again).
 */
function canonicalBase64url(text: string): boolean {
  const rest = text.length % 4;
  if (rest === 0) return true;
  if (rest === 1) return false;
  const last = base64urlValue[text.charCodeAt(text.length - 1)];
  return (last & (rest === 2 ? 0x0f : 0x03)) === 0;
}

function checkKey(key: Buffer): void {
  if (!Buffer.isBuffer(key) || key.length !== KEY_BYTES) throw new RangeError('token key must be a 32-byte Buffer');
}

function validateClaims(c: TokenClaims): void {
  const fail = (what: string): never => {
    throw new RangeError(`invalid token claims: ${what}`);
  };
  if (!idPattern.test(c.id)) fail('id must be 16 bytes base64url');
  if (!boundedString(c.site, TOKEN_LIMITS.site)) fail('site');
  if (!boundedString(c.hostname, TOKEN_LIMITS.hostname)) fail('hostname');
  if (!Number.isSafeInteger(c.iat) || c.iat < 0) fail('iat');
  if (!kinds.includes(c.kind)) fail('kind');
  if (c.action !== null && !boundedString(c.action, TOKEN_LIMITS.action))
    fail(`action (printable ASCII, at most ${TOKEN_LIMITS.action})`);
  if (c.cdata !== null && !boundedString(c.cdata, TOKEN_LIMITS.cdata))
    fail(`cdata (printable ASCII, at most ${TOKEN_LIMITS.cdata})`);
  if (c.score !== null && !(typeof c.score === 'number' && c.score >= 0 && c.score <= 1))
    fail('score must be within 0..1');
  if (c.net !== null && !boundedString(c.net, TOKEN_LIMITS.net)) fail('net');
  if (!Array.isArray(c.reasons) || !c.reasons.every((r) => (SCORE_REASONS as readonly string[]).includes(r)))
    fail('reasons (risk.ts SCORE_REASONS only)');
}

/**
 * Reasons as a bit set over SCORE_REASONS: a few characters, whatever the list. Summed, not
 * OR-ed: JavaScript's bitwise operators work on 32 bits, and the list is longer than that
 * (a safe integer holds 53).
 */
function reasonBits(reasons: readonly string[]): number {
  return [...new Set(reasons)].reduce((bits, r) => bits + 2 ** (SCORE_REASONS as readonly string[]).indexOf(r), 0);
}

function reasonsOf(bits: number): string[] {
  return SCORE_REASONS.filter((_, i) => Math.floor(bits / 2 ** i) % 2 === 1);
}

function boundedString(s: unknown, max: number): boolean {
  return typeof s === 'string' && s.length <= max && printable.test(s);
}

function parseClaims(plaintext: Buffer): TokenClaims | null {
  let v: unknown;
  try {
    v = JSON.parse(plaintext.toString('utf8'));
  } catch {
    return null;
  }
  // Eight or nine fields: a token sealed before `net` or `reasons` existed (at most TOKEN_TTL_MS ago).
  if (!Array.isArray(v) || v.length < 8 || v.length > 10) return null;
  const [id, site, hostname, iat, kind, action, score, cdata, net = null, reasons = 0] = v as unknown[];
  const strOrNull = (x: unknown) => x === null || typeof x === 'string';
  if (typeof id !== 'string' || typeof site !== 'string' || typeof hostname !== 'string') return null;
  if (typeof iat !== 'number' || !kinds.includes(kind as TokenKind)) return null;
  if (!strOrNull(action) || !strOrNull(cdata) || !strOrNull(net) || !(score === null || typeof score === 'number'))
    return null;
  if (!Number.isSafeInteger(reasons) || (reasons as number) < 0) return null;
  return {
    id,
    site,
    hostname,
    iat,
    kind: kind as TokenKind,
    action: action,
    score: score,
    cdata: cdata,
    net: net,
    reasons: reasonsOf(reasons as number),
  };
}
