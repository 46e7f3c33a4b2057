import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { walkWasm } from '../../pow/compile.ts';
import { instantiateWalk, MAX_NONCE, passes, puzzleKey, WALK } from '../../pow/walk.ts';
import type { RefusalReason } from '../analytics/counter.ts';
import { subkey } from './subkeys.ts';

/**
 * Proof of work in a few sub-puzzles (Cap's layout): a challenge of `count` puzzles, each
 * asking for a decimal nonce whose attempt of the walk (pow/walk.ts) under the puzzle's key
 * (from `id` and i = 0..count-1) passes `bits`. Expected work is count × 2^bits attempts; the
 * solve time is a sum of `count` independent geometric variables, so its spread shrinks with
 * 1/sqrt(count). Checking a proof costs `count` attempts (eight at a time), so `count` stays
 * small: at 8 puzzles one check is about a millisecond of CPU.
 *
 * The challenge travels as a ticket the server signed (HMAC-SHA-256 under a key derived from
 * TOKEN_KEY): nothing is stored when it is issued, the client cannot change its size, its
 * site, its purpose or what it is bound to, and it expires. It is spent at redemption through
 * the spent-token store (SET NX), so a proof answers exactly one request.
 */

/** How long a work ticket may be redeemed after issue. */
export const WORK_TTL_MS = 180_000;
/** Bounds of a ticket: never more puzzles or bits than these, whatever the evidence says. */
export const WORK_LIMITS = { maxCount: 16, maxBits: 24, minBits: 1, ticketLength: 2048 } as const;
/**
 * What an attempt of the walk costs a native solver, in SHA-256 hashes (log2): about 3,000
 * (bench/adversary.ts). A site's `min_work_bits` is a floor in hashes; it is converted with this.
 */
export const ATTEMPT_IN_HASHES_LOG2 = 12;

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
/** How the console counts a refused proof. */
export function refusalOf(reason: WorkFailure): RefusalReason {
  return reason === 'expired' ? 'expired' : reason === 'replayed' ? 'duplicate' : 'invalid_proof';
}

/** Takes a ticket's id once: true for exactly one caller (the spent-token store's SET NX). */
export type Redeem = (id: string, ttlMs: number) => Promise<boolean>;
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
    id: randomBytes(16).toString('base64url'),
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

const noncePattern = /^\d{1,10}$/;

/** The server's instance of walk.wat (compiled when this module loads). */
const walk = await instantiateWalk(await walkWasm());
if (!walk) throw new Error('WebAssembly is required to check proofs of work');

/**
 * Redeems a proof: the ticket's cheap checks (signature, expiry, site, purpose, binding, the
 * shape of the nonces), then the ticket is spent, then the nonces' attempts are run. A ticket
 * is spent before its attempts run, so each costs the server its attempts at most once, and a
 * proof answers exactly one request. `solutions` is the nonces joined by commas, in puzzle order.
 */
export async function redeemWork(
  tokenKey: Buffer,
  redeem: Redeem,
  proof: { ticket?: unknown; solutions?: unknown },
  expect: {
    site: string;
    purposes: readonly WorkPurpose[];
    bind: string;
    now: number;
    /** When given, the action and cdata the ticket must carry. */
    action?: string | null;
    cdata?: string | null;
  },
): Promise<WorkResult> {
  const opened = openTicket(tokenKey, proof.ticket);
  if (!opened.ok) return opened;
  const c = opened.claims;
  if (!(c.exp > expect.now)) return { ok: false, reason: 'expired' };
  if (c.site !== expect.site) return { ok: false, reason: 'wrong-site' };
  if (!expect.purposes.includes(c.purpose)) return { ok: false, reason: 'wrong-purpose' };
  if (c.bind !== expect.bind) return { ok: false, reason: 'wrong-binding' };
  if (expect.action !== undefined && c.action !== expect.action) return { ok: false, reason: 'wrong-binding' };
  if (expect.cdata !== undefined && c.cdata !== expect.cdata) return { ok: false, reason: 'wrong-binding' };
  const nonces = parseNonces(proof.solutions, c.count);
  if (!nonces) return { ok: false, reason: 'bad-solution' };
  if (!(await redeem(`work:${c.id}`, Math.max(1_000, c.exp - expect.now + 1_000))))
    return { ok: false, reason: 'replayed' };
  if (!solutionsPass(c, nonces)) return { ok: false, reason: 'bad-solution' };
  return { ok: true, claims: c, elapsedMs: Math.max(0, expect.now - c.iat) };
}

/** The nonces of a proof, or undefined unless there are exactly `count` decimal u32s. */
function parseNonces(solutions: unknown, count: number): number[] | undefined {
  if (typeof solutions !== 'string' || solutions.length > count * 11) return undefined;
  const parts = solutions.split(',');
  if (parts.length !== count || !parts.every((n) => noncePattern.test(n) && Number(n) <= MAX_NONCE)) return undefined;
  return parts.map(Number);
}

/** Whether every puzzle's nonce passes: the attempts run eight at a time. */
export function solutionsPass(claims: Pick<WorkClaims, 'id' | 'bits'>, nonces: readonly number[]): boolean {
  for (let first = 0; first < nonces.length; first += WALK.lanes) {
    const batch = nonces
      .slice(first, first + WALK.lanes)
      .map((nonce, k) => ({ key: puzzleKey(claims.id, first + k), nonce }));
    if (!walk!.results(batch).every((r) => passes(r, claims.bits))) return false;
  }
  return true;
}

/** Expected attempts of a challenge of this size. */
export function expectedAttempts(size: WorkSize): number {
  return size.count * 2 ** size.bits;
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, Math.round(n)));
}
