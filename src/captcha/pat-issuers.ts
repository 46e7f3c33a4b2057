import { createHash, createPublicKey } from 'node:crypto';

/**
 * A Private Access Token issuer the operator trusts (PAT_ISSUERS): its name, as it goes into
 * the TokenChallenge's issuer_name, and its token key as RFC 9578 encodes it (the RSA public
 * key's SubjectPublicKeyInfo with the RSASSA-PSS OID and SHA-384 parameters).
 */
export interface PatIssuer {
  name: string;
  /** The token-key bytes, exactly as configured (sent back in the WWW-Authenticate challenge). */
  tokenKey: Buffer;
  /** SHA-256 of `tokenKey`: the token_key_id a token of this issuer names. */
  tokenKeyId: Buffer;
}

/** Issuer names are host names (with a port, at most): what RFC 9577's issuer_name holds. */
const issuerName = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(?::\d{1,5})?$/;

/**
 * Parses PAT_ISSUERS: `name=<base64url token-key>` entries separated by commas (an empty
 * string: none). Each key must be a 2048-bit RSASSA-PSS public key (token type 2, Blind RSA
 * 2048, RSABSSA-SHA384-PSS-Deterministic). Throws an Error naming the first bad entry.
 */
export function parsePatIssuers(text: string): PatIssuer[] {
  const out: PatIssuer[] = [];
  for (const entry of text.split(',').map((s) => s.trim())) {
    if (!entry) continue;
    const eq = entry.indexOf('=');
    const name = eq > 0 ? entry.slice(0, eq).trim() : '';
    const encoded = eq > 0 ? entry.slice(eq + 1).trim() : '';
    if (!issuerName.test(name)) throw new Error(`entry ${out.length + 1}: expected issuer-name=<base64url token-key>`);
    if (!/^[A-Za-z0-9_-]+={0,2}$/.test(encoded)) throw new Error(`issuer ${name}: the token-key is not base64url`);
    const tokenKey = Buffer.from(encoded, 'base64url');
    if (!isBlindRsa2048Key(tokenKey)) {
      throw new Error(`issuer ${name}: the token-key is not a 2048-bit RSASSA-PSS (SHA-384) SubjectPublicKeyInfo`);
    }
    if (out.some((i) => i.name === name)) throw new Error(`issuer ${name} is listed twice`);
    out.push({ name, tokenKey, tokenKeyId: createHash('sha256').update(tokenKey).digest() });
  }
  return out;
}

function isBlindRsa2048Key(der: Buffer): boolean {
  try {
    const key = createPublicKey({ key: der, format: 'der', type: 'spki' });
    const details = key.asymmetricKeyDetails;
    return (
      key.asymmetricKeyType === 'rsa-pss' &&
      details?.modulusLength === 2048 &&
      (details.hashAlgorithm === undefined || details.hashAlgorithm === 'sha384')
    );
  } catch {
    return false;
  }
}
