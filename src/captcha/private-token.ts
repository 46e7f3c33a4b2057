import { createHash, timingSafeEqual } from 'node:crypto';
import { publicVerif, Token, TokenChallenge, TOKEN_TYPES, util } from '@cloudflare/privacypass-ts';
import { AppError } from '../errors.ts';
import type { Stores } from '../stores/index.ts';
import { admit, guardStore, type BrowserRequest, type CaptchaDeps } from './context.ts';
import type { PatIssuer } from './pat-issuers.ts';

/**
 * Private Access Tokens (RFC 9577's `PrivateToken` HTTP authentication scheme, RFC 9578's
 * token type 2: publicly verifiable Blind RSA 2048, RSABSSA-SHA384-PSS-Deterministic).
 *
 * For each challenge id the service asks every configured issuer (PAT_ISSUERS) for a token
 * whose redemption context is derived from the id ({@link tokenChallenges}); a device its
 * issuer attested (Safari on Apple hardware, through its attester) answers with one. A token
 * counts only when it answers this challenge of ours (challenge_digest), names a configured
 * key (token_key_id), carries that key's signature, and its nonce was never redeemed before
 * (the spent-token store's `SET NX`): a forged, carried or replayed token marks nothing.
 * The mark ({@link markAttested}) lives 10 minutes, as long as the challenge.
 */

/** Token type 2, Blind RSA (2048-bit). */
export const PAT_TOKEN_TYPE = 0x0002;
/** How long the attestation mark, and a redeemed nonce, are kept: a challenge's lifetime. */
export const ATTESTED_TTL_MS = 600_000;
/** Longest Authorization header read (a type-2 token is 354 bytes, 472 base64url characters). */
export const MAX_AUTHORIZATION_LENGTH = 1024;

const NONCE = 32;
const DIGEST = 32;
const KEY_ID = TOKEN_TYPES.BLIND_RSA.Nid;
const AUTHENTICATOR = TOKEN_TYPES.BLIND_RSA.Nk;
const TOKEN_LENGTH = 2 + NONCE + DIGEST + KEY_ID + AUTHENTICATOR;

/** What the challenges depend on besides the id: the trusted issuers and our own host, if known. */
export interface PrivateTokenConfig {
  issuers: readonly PatIssuer[];
  /** The service's host (from PUBLIC_URL) as the challenges' origin_info; absent: empty. */
  originHost?: string;
}

/** The 32-byte redemption context of a challenge: SHA-256 of a domain-separated id. */
export function redemptionContext(challengeId: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(`auditcaptcha/private-token/v1\0${challengeId}`).digest());
}

/** The TokenChallenge (serialized) that `issuer` is asked for on this challenge id. */
export function tokenChallengeBytes(cfg: PrivateTokenConfig, issuer: PatIssuer, challengeId: string): Uint8Array {
  const info = cfg.originHost ? [cfg.originHost] : undefined;
  return new TokenChallenge(PAT_TOKEN_TYPE, issuer.name, redemptionContext(challengeId), info).serialize();
}

/**
 * The `WWW-Authenticate` value for a challenge id: one `PrivateToken challenge="…",
 * token-key="…"` per configured issuer, comma-separated (RFC 9110 allows several challenges
 * in one field). base64url with padding, as RFC 9577's examples and the reference code send it.
 */
export function tokenChallenges(cfg: PrivateTokenConfig, challengeId: string): string {
  const b64 = (bytes: Uint8Array) => padded(Buffer.from(bytes).toString('base64url'));
  return cfg.issuers
    .map(
      (issuer) =>
        `PrivateToken challenge="${b64(tokenChallengeBytes(cfg, issuer, challengeId))}", token-key="${b64(issuer.tokenKey)}"`,
    )
    .join(', ');
}

/** Why a token was refused. */
export type PrivateTokenFailure =
  'missing' | 'malformed' | 'token-type' | 'unknown-key' | 'wrong-challenge' | 'bad-signature' | 'replayed';

export type PrivateTokenResult = { ok: true; issuer: string } | { ok: false; reason: PrivateTokenFailure };

/**
 * Checks an `Authorization: PrivateToken token="…"` header against the challenge id, in this
 * order: present and well-formed (at most {@link MAX_AUTHORIZATION_LENGTH} characters, one
 * base64url token of exactly a type-2 token's length), token type 2, token_key_id of a
 * configured issuer, challenge_digest equal to SHA-256 of the challenge we send that issuer
 * for this id, the RSA signature, then the nonce redeemed once (so a valid token counts on
 * one request only). Digests are compared in constant time. Never throws for bad input.
 */
export async function verifyPrivateToken(
  stores: Stores,
  cfg: PrivateTokenConfig,
  challengeId: string,
  authorization: string | undefined,
): Promise<PrivateTokenResult> {
  if (!authorization?.trim()) return { ok: false, reason: 'missing' };
  const bytes = parseAuthorization(authorization);
  if (!bytes) return { ok: false, reason: 'malformed' };
  if (bytes.readUInt16BE(0) !== PAT_TOKEN_TYPE) return { ok: false, reason: 'token-type' };
  const nonce = bytes.subarray(2, 2 + NONCE);
  const digest = bytes.subarray(2 + NONCE, 2 + NONCE + DIGEST);
  const keyId = bytes.subarray(2 + NONCE + DIGEST, 2 + NONCE + DIGEST + KEY_ID);
  const issuer = cfg.issuers.find((i) => timingSafeEqual(i.tokenKeyId, keyId));
  if (!issuer) return { ok: false, reason: 'unknown-key' };
  const expected = createHash('sha256')
    .update(tokenChallengeBytes(cfg, issuer, challengeId))
    .digest();
  if (!timingSafeEqual(expected, digest)) return { ok: false, reason: 'wrong-challenge' };
  // A copy with its own buffer: the library reads tokens through `bytes.buffer` from offset 0.
  const token = Token.deserialize(TOKEN_TYPES.BLIND_RSA, new Uint8Array(bytes));
  const verified = await new publicVerif.Origin(publicVerif.BlindRSAMode.PSS)
    .verify(token, await verifyingKey(issuer))
    .catch(() => false);
  if (!verified) return { ok: false, reason: 'bad-signature' };
  const fresh = await stores.spentTokens.redeem(`pat:${nonce.toString('base64url')}`, ATTESTED_TTL_MS);
  return fresh ? { ok: true, issuer: issuer.name } : { ok: false, reason: 'replayed' };
}

/**
 * The browser route's flow (`GET /api/v2/challenges/{challenge}/private-token`): 404 when no
 * issuer is configured, the origin rule for `sitekey` (403), then the token in
 * `authorization`. Without a valid one: 401 `ERR_PRIVATE_TOKEN` (its `reason` one of
 * {@link PrivateTokenFailure}) with the `WWW-Authenticate` challenges, which an attested
 * device answers by sending the request again with a token. With one: the challenge is marked.
 */
export async function attestChallenge(
  deps: CaptchaDeps,
  cfg: PrivateTokenConfig,
  input: { challenge: string; sitekey: string },
  authorization: string | undefined,
  req: BrowserRequest,
): Promise<{ attested: true }> {
  if (cfg.issuers.length === 0) throw new AppError('ERR_NOT_FOUND', 'Private Access Tokens are not configured.');
  await admit(deps, input.sitekey, req);
  const result = await guardStore(verifyPrivateToken(deps.stores, cfg, input.challenge, authorization));
  if (!result.ok) {
    throw new AppError(
      'ERR_PRIVATE_TOKEN',
      'Send a Private Access Token for one of the challenges in WWW-Authenticate.',
      {
        reason: result.reason,
        headers: { 'WWW-Authenticate': tokenChallenges(cfg, input.challenge), 'Cache-Control': 'no-store' },
      },
    );
  }
  await guardStore(markAttested(deps.stores, input.challenge, input.sitekey));
  return { attested: true };
}

const markKey = (challengeId: string) => `pat:${challengeId}`;

/**
 * Marks the challenge attested for {@link ATTESTED_TTL_MS}, for `sitekey` only (the site whose
 * origin rule admitted the request): a token redeemed on one site's challenge id lifts no
 * other site's. Resolves true for the call that set the mark, false when it was set already
 * (the first mark stands; its TTL is not renewed).
 */
export async function markAttested(stores: Stores, challengeId: string, sitekey: string): Promise<boolean> {
  const key = markKey(challengeId);
  try {
    await stores.challenges.create(key, { attested: 1, site: sitekey }, ATTESTED_TTL_MS);
    return true;
  } catch (err) {
    if (await stores.challenges.get(key)) return false;
    throw err;
  }
}

/** Whether a valid Private Access Token was redeemed for this challenge id of `sitekey` in the last 10 minutes. */
export async function isAttested(stores: Stores, challengeId: string, sitekey: string): Promise<boolean> {
  const mark = (await stores.challenges.get(markKey(challengeId))) as { site?: string } | null;
  return mark !== null && mark.site === sitekey;
}

/**
 * The token bytes of a `PrivateToken token="…"` credential, or null. The scheme is matched
 * case-insensitively; parameters other than `token` are ignored; the token may be quoted.
 */
function parseAuthorization(header: string): Buffer | null {
  if (header.length > MAX_AUTHORIZATION_LENGTH) return null;
  const m = /^\s*PrivateToken\s+(.*)$/is.exec(header);
  if (!m) return null;
  let encoded: string | undefined;
  for (const param of m[1].split(',')) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'token') continue;
    if (encoded !== undefined) return null;
    encoded = unquote(param.slice(eq + 1).trim());
  }
  if (!encoded || !/^[A-Za-z0-9_-]+={0,2}$/.test(encoded)) return null;
  const bytes = Buffer.from(encoded, 'base64url');
  return bytes.length === TOKEN_LENGTH ? bytes : null;
}

function unquote(v: string): string {
  return v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v;
}

function padded(b64: string): string {
  return b64 + '='.repeat((4 - (b64.length % 4)) % 4);
}

/** Each issuer's key as WebCrypto takes it for RSA-PSS verification (imported once). */
const verifyingKeys = new WeakMap<PatIssuer, Promise<CryptoKey>>();

function verifyingKey(issuer: PatIssuer): Promise<CryptoKey> {
  let key = verifyingKeys.get(issuer);
  if (!key) {
    // WebCrypto does not import the RSASSA-PSS OID: the library's conversion to rsaEncryption.
    const spki = new Uint8Array(util.convertRSASSAPSSToEnc(new Uint8Array(issuer.tokenKey)));
    key = crypto.subtle.importKey('spki', spki, TOKEN_TYPES.BLIND_RSA.rsaParams, false, ['verify']);
    verifyingKeys.set(issuer, key);
  }
  return key;
}

/** Whether a Private Access Token was redeemed for this challenge of `sitekey` (private-token.ts); false where none are asked. */
export async function attestedFor(deps: CaptchaDeps, id: string, sitekey: string): Promise<boolean> {
  return deps.privateTokens === true && (await guardStore(isAttested(deps.stores, id, sitekey)));
}
