import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { subkey } from '../captcha/subkeys.ts';
import { networkKey } from '../net/client-key.ts';

/** The clearance cookie's name on a protected host. */
export const CLEARANCE_COOKIE = '__auditcaptcha_clearance';

/** `CLEARANCE_COOKIE`'s pair in a Cookie header (a literal, so the regex-safety test reads it). */
const cookiePattern = /(?:^|;) *__auditcaptcha_clearance=([^;]*)/;

/**
 * The clearance cookie's value in a `Cookie` header, read as Koa's `ctx.cookies.get` reads a
 * cookie (the `cookies` package: the first pair of that name, surrounding quotes dropped).
 */
export function clearanceFromCookieHeader(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const value = cookiePattern.exec(header)?.[1];
  return value !== undefined && value.startsWith('"') ? value.slice(1, -1) : value;
}

/** What a clearance is bound to: the site, the client's network (IPv4 /24, IPv6 /64), its User-Agent. */
export interface ClearanceBinding {
  sitekey: string;
  ip: string;
  userAgent: string;
}

const MAC_BYTES = 32;

function mac(tokenKey: Buffer, b: ClearanceBinding, expires: number): Buffer {
  const ua = createHash('sha256').update(b.userAgent).digest('base64url');
  return createHmac('sha256', subkey(tokenKey, 'gateway-clearance'))
    .update(`v1\n${b.sitekey}\n${networkKey(b.ip)}\n${ua}\n${expires}`)
    .digest();
}

/**
 * A clearance cookie value: `<expiry, unix seconds>.<HMAC-SHA-256, base64url>` under a subkey
 * of TOKEN_KEY. Nothing of the binding is in the value; it is recomputed from the request.
 */
export function issueClearance(tokenKey: Buffer, b: ClearanceBinding, nowMs: number, ttlSeconds: number): string {
  const expires = Math.floor(nowMs / 1000) + ttlSeconds;
  return `${expires}.${mac(tokenKey, b, expires).toString('base64url')}`;
}

/** A clearance value's parts, or null when it is not shaped as {@link issueClearance} writes it. */
function parseClearance(value: string | undefined): { expires: number; given: Buffer } | null {
  if (!value || value.length > 100) return null;
  const dot = value.indexOf('.');
  if (dot < 1 || dot > 12) return null;
  const expiresText = value.slice(0, dot);
  if (!/^\d+$/.test(expiresText)) return null;
  const given = Buffer.from(value.slice(dot + 1), 'base64url');
  return given.length === MAC_BYTES ? { expires: Number(expiresText), given } : null;
}

/**
 * Whether `value` is a clearance for this binding that has not expired, compared in constant
 * time. Malformed values, another site, network or User-Agent, and expired ones are all false.
 */
export function checkClearance(
  tokenKey: Buffer,
  value: string | undefined,
  b: ClearanceBinding,
  nowMs: number,
): boolean {
  const parsed = parseClearance(value);
  if (!parsed || parsed.expires * 1000 <= nowMs) return false;
  return timingSafeEqual(parsed.given, mac(tokenKey, b, parsed.expires));
}

/** A clearance value's expiry in unix seconds, as it states it (check it with {@link checkClearance} first), or null. */
export function clearanceExpiry(value: string): number | null {
  return parseClearance(value)?.expires ?? null;
}
