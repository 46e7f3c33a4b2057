import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { pooledRandomBytes } from './random-bytes.ts';
import { subkey } from './subkeys.ts';

/**
 * Proof of work in many small sub-puzzles (Cap's layout): a challenge of `count` puzzles,
 * each asking for a decimal nonce such that SHA-256 of the UTF-8 bytes of `${id}.${i}:${nonce}`
 * (i = 0..count-1) starts with `bits` zero bits. Expected work is count × 2^bits hashes; the
 * solve time is a sum of `count` independent geometric variables, so its spread shrinks with
 * 1/sqrt(count): at 32 puzzles a person's 95th percentile is about 1.3 × the median.
 *
 * The challenge travels as a ticket the server signed (HMAC-SHA-256 under a key derived from
 * TOKEN_KEY): nothing is stored when it is issued, the client cannot change its size, its
 * site, its purpose or what it is bound to, and it expires. It is spent at redemption through
 * the spent-token store (SET NX), so a proof answers exactly one request.
 */

/** How long a work ticket may be redeemed after issue. */
export const WORK_TTL_MS = 180_000;
/** Bounds of a ticket: never more puzzles or bits than these, whatever the evidence says. */
export const WORK_LIMITS = { maxCount: 128, maxBits: 26, minBits: 1, ticketLength: 2048 } as const;

/** What a ticket is for; a ticket redeems only where its purpose is expected. */
export type WorkPurpose = 'v1' | 'v1-no-image' | 'v2' | 'v3';

export interface WorkSize {
  count: number;
  bits: number;
}

/** Signed content of a ticket. */
export interface WorkClaims extends WorkSize {
  /** Random 16 bytes, base64url: the puzzles' seed and the redemption id. */
  id: string;
  site: string;
  purpose: WorkPurpose;
  /** What the proof is bound to beyond the site: a v1 challenge id, or a digest of action and cdata. */
  bind: string;
  /** Issue time and expiry, unix ms. */
  iat: number;
  exp: number;
  /** Server-observed evidence at issue (see evidence.ts), carried to the score. */
  ev: number[];
  /** The action and cdata the token will carry (validated at the door). */
  action: string | null;
  cdata: string | null;
  /**
   * The environment proof's reference values, sealed (env-proof.ts); null when the challenge
   * has no layout (no engine at issue, or a ticket from before layouts).
   */
  env: string | null;
}

/** What the widget receives. */
export interface WorkView {
  ticket: string;
  id: string;
  count: number;
  bits: number;
  expires_at: string;
}

export type WorkFailure =
  'malformed' | 'forged' | 'expired' | 'wrong-site' | 'wrong-purpose' | 'wrong-binding' | 'bad-solution' | 'replayed';
export type WorkResult = { ok: true; claims: WorkClaims; elapsedMs: number } | { ok: false; reason: WorkFailure };

const workKey = (tokenKey: Buffer) => subkey(tokenKey, 'work-ticket');

function mac(tokenKey: Buffer, payload: string): Buffer {
  return createHmac('sha256', workKey(tokenKey)).update(payload).digest().subarray(0, 24);
}

/** Issues a signed ticket of `size` for `site`, valid {@link WORK_TTL_MS} from `now`. */
export function issueWork(
  tokenKey: Buffer,
  opts: {
    site: string;
    purpose: WorkPurpose;
    bind: string;
    size: WorkSize;
    now: number;
    evidence?: number[];
    action?: string | null;
    cdata?: string | null;
    /** Sealed reference values of the challenge's layout. */
    env?: string | null;
  },
): WorkView {
  const count = clamp(opts.size.count, 1, WORK_LIMITS.maxCount);
  const bits = clamp(opts.size.bits, WORK_LIMITS.minBits, WORK_LIMITS.maxBits);
  const claims: WorkClaims = {
    id: pooledRandomBytes(16).toString('base64url'),
    site: opts.site,
    purpose: opts.purpose,
    bind: opts.bind,
    count,
    bits,
    iat: opts.now,
    exp: opts.now + WORK_TTL_MS,
    ev: opts.evidence ?? [],
    action: opts.action ?? null,
    cdata: opts.cdata ?? null,
    env: opts.env ?? null,
  };
  const payload = Buffer.from(
    JSON.stringify([
      claims.id,
      claims.site,
      claims.purpose,
      claims.bind,
      count,
      bits,
      claims.iat,
      claims.exp,
      claims.ev,
      claims.action,
      claims.cdata,
      claims.env,
    ]),
  ).toString('base64url');
  const ticket = `${payload}.${mac(tokenKey, payload).toString('base64url')}`;
  return { ticket, id: claims.id, count, bits, expires_at: new Date(claims.exp).toISOString() };
}

/** Opens a ticket: its signature and shape only (no expiry, no redemption). */
export function openTicket(
  tokenKey: Buffer,
  ticket: unknown,
): { ok: true; claims: WorkClaims } | { ok: false; reason: 'malformed' | 'forged' } {
  if (typeof ticket !== 'string' || ticket.length > WORK_LIMITS.ticketLength) return { ok: false, reason: 'malformed' };
  const dot = ticket.indexOf('.');
  if (dot < 1) return { ok: false, reason: 'malformed' };
  const payload = ticket.slice(0, dot);
  const given = Buffer.from(ticket.slice(dot + 1), 'base64url');
  const expected = mac(tokenKey, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'forged' };
  try {
    const fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[];
    const [id, site, purpose, bind, count, bits, iat, exp, ev, action, cdata, envField] = fields;
    // Signed like the rest: tickets from before layouts carry a number or nothing (no layout).
    const env = typeof envField === 'string' ? envField : null;
    return {
      ok: true,
      claims: { id, site, purpose, bind, count, bits, iat, exp, ev, action, cdata, env } as WorkClaims,
    };
  } catch {
    return { ok: false, reason: 'malformed' };
  }
}

const noncePattern = /^\d{1,16}$/;

/**
 * Checks a proof without spending it: signature, expiry, site, purpose, binding, then every
 * nonce. `solutions` is the nonces joined by commas, in puzzle order.
 */
export function checkWork(
  tokenKey: Buffer,
  proof: { ticket?: unknown; solutions?: unknown },
  expect: { site: string; purposes: readonly WorkPurpose[]; bind: string; now: number },
): WorkResult {
  const opened = openTicket(tokenKey, proof.ticket);
  if (!opened.ok) return opened;
  const c = opened.claims;
  if (!(c.exp > expect.now)) return { ok: false, reason: 'expired' };
  if (c.site !== expect.site) return { ok: false, reason: 'wrong-site' };
  if (!expect.purposes.includes(c.purpose)) return { ok: false, reason: 'wrong-purpose' };
  if (c.bind !== expect.bind) return { ok: false, reason: 'wrong-binding' };
  if (typeof proof.solutions !== 'string' || proof.solutions.length > c.count * 17)
    return { ok: false, reason: 'bad-solution' };
  const nonces = proof.solutions.split(',');
  if (nonces.length !== c.count) return { ok: false, reason: 'bad-solution' };
  for (let i = 0; i < c.count; i++) {
    const nonce = nonces[i];
    if (!noncePattern.test(nonce) || leadingZeroBits(puzzleHash(c.id, i, nonce)) < c.bits)
      return { ok: false, reason: 'bad-solution' };
  }
  return { ok: true, claims: c, elapsedMs: Math.max(0, expect.now - c.iat) };
}

/** Spends a checked proof: true for exactly one caller (the spent-token store's SET NX). */
export async function spendWork(
  redeem: (id: string, ttlMs: number) => Promise<boolean>,
  claims: WorkClaims,
  now: number,
): Promise<boolean> {
  return redeem(`work:${claims.id}`, Math.max(1_000, claims.exp - now + 1_000));
}

/** Expected hashes of a challenge of this size. */
export function expectedHashes(size: WorkSize): number {
  return size.count * 2 ** size.bits;
}

/** Number of leading zero bits in `buf`. */
export function leadingZeroBits(buf: Uint8Array): number {
  let bits = 0;
  for (const byte of buf) {
    if (byte === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(byte) - 24;
  }
  return bits;
}

/** SHA-256 of `${id}.${i}:${nonce}`. */
export function puzzleHash(id: string, i: number, nonce: string): Buffer {
  return createHash('sha256').update(`${id}.${i}:${nonce}`, 'utf8').digest();
}

/**
 * Solves every puzzle natively, counting nonces up from 0 (what a bot on a server does; tests
 * and the benchmark use it). Returns the solutions string and the hashes tried.
 */
export function solveWork(view: Pick<WorkView, 'id' | 'count' | 'bits'>): { solutions: string; hashes: number } {
  const out: string[] = [];
  let hashes = 0;
  for (let i = 0; i < view.count; i++) {
    const prefix = `${view.id}.${i}:`;
    for (let n = 0; ; n++) {
      hashes++;
      const h = createHash('sha256')
        .update(prefix + n, 'utf8')
        .digest();
      if (leadingZeroBits(h) >= view.bits) {
        out.push(String(n));
        break;
      }
    }
  }
  return { solutions: out.join(','), hashes };
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, Math.round(n)));
}
