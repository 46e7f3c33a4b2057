/**
 * The one verifier of a sealed widget token, for every place that redeems one: siteverify
 * (src/captcha/siteverify.ts, which the demo's verify calls too) and the gateway's clearance
 * (src/gateway/gateway.ts). The rules, in order: at most 2048 characters and opening under our
 * key; of the expected site (and host name, where the caller names one); unexpired (300 s);
 * solved on the expected network, where one is given (the caller says whether a mismatch
 * refuses or lowers the score); scoring at least the site's minimum. `spendToken` then redeems
 * it once (SET NX across instances). A new rule is one step here.
 */
import type { Stores } from '../stores/index.ts';
import { isExpired, MAX_TOKEN_LENGTH, openToken, TOKEN_TTL_MS, type TokenClaims } from './tokens.ts';

/** What a token must be to count. */
export interface TokenExpectation {
  sitekey: string;
  /** The site's minimum score; a token without a score (sealed by an earlier version) counts as 0. */
  minScore: number;
  /** The host name the token must have been solved on, when the caller knows it. */
  hostname?: string;
  /** The network (networkKey) the token must have been solved on, when the caller knows it. */
  network?: string;
  /** A token solved elsewhere: refused (`enforce`), kept at {@link NETWORK_MISMATCH_SCORE} (`score`), or allowed (`off`). */
  networkCheck: 'enforce' | 'score' | 'off';
}

/** Why a token does not count, in the order the rules are checked. */
export type TokenRefusal = 'malformed' | 'other-site' | 'expired' | 'other-network' | 'below-minimum';

export type TokenCheck =
  | {
      ok: true;
      /** The claims as redeemed: a network mismatch under `score` lowers the score and says so. */
      claims: TokenClaims;
      /** How long the token's spent mark must live. */
      markTtl: number;
    }
  | { ok: false; refusal: TokenRefusal; claims?: TokenClaims };

/** The score a token keeps when its network does not match under `networkCheck: 'score'`. */
export const NETWORK_MISMATCH_SCORE = 0.1;

/** Checks `token` against what it must be, at `now`; no store is read. */
export function checkToken(token: string, key: Buffer, expected: TokenExpectation, now: number): TokenCheck {
  if (!token || token.length > MAX_TOKEN_LENGTH) return { ok: false, refusal: 'malformed' };
  const opened = openToken(token, key);
  if (!opened.ok) return { ok: false, refusal: 'malformed' };
  const claims = opened.claims;
  if (claims.site !== expected.sitekey || (expected.hostname !== undefined && claims.hostname !== expected.hostname))
    return { ok: false, refusal: 'other-site', claims };
  if (isExpired(claims, now)) return { ok: false, refusal: 'expired', claims };
  const mismatch =
    expected.network !== undefined &&
    claims.net !== null &&
    expected.networkCheck !== 'off' &&
    claims.net !== expected.network;
  if (mismatch && expected.networkCheck === 'enforce') return { ok: false, refusal: 'other-network', claims };
  // The minimum judges the evidence the token was solved with; a relaxed network check lowers
  // the score afterwards.
  if ((claims.score ?? 0) < expected.minScore) return { ok: false, refusal: 'below-minimum', claims };
  const redeemed = mismatch
    ? {
        ...claims,
        score: Math.min(claims.score ?? NETWORK_MISMATCH_SCORE, NETWORK_MISMATCH_SCORE),
        reasons: [...claims.reasons, 'remoteip_mismatch'],
      }
    : claims;
  // Spent marks outlive the token by a margin, so clock steps cannot reopen it.
  const markTtl = Math.max(1000, claims.iat + TOKEN_TTL_MS - now) + 60_000;
  return { ok: true, claims: redeemed, markTtl };
}

/** Redeems a checked token: true for the first redemption on any instance, false after. */
export function spendToken(
  stores: Pick<Stores, 'spentTokens'>,
  claims: TokenClaims,
  markTtl: number,
): Promise<boolean> {
  return stores.spentTokens.redeem(claims.id, markTtl);
}
