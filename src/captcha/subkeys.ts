import { createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';

/** What a key derived from TOKEN_KEY is for; each purpose has its own, so none stands in for another. */
export type SubkeyPurpose = 'answer-seal' | 'env-proof' | 'work-ticket';

const derived = new WeakMap<Buffer, Map<SubkeyPurpose, KeyObject>>();

/**
 * HKDF-SHA-256 of TOKEN_KEY (info `auditcaptcha/<purpose>`, 32 bytes), as a KeyObject, derived
 * once per key and purpose: deriving and importing it on every call was 13% of a challenge
 * creation's CPU (bench/hotpaths, profiled).
 */
export function subkey(tokenKey: Buffer, purpose: SubkeyPurpose): KeyObject {
  let keys = derived.get(tokenKey);
  if (!keys) derived.set(tokenKey, (keys = new Map<SubkeyPurpose, KeyObject>()));
  let key = keys.get(purpose);
  if (!key) {
    key = createSecretKey(Buffer.from(hkdfSync('sha256', tokenKey, Buffer.alloc(0), `auditcaptcha/${purpose}`, 32)));
    keys.set(purpose, key);
  }
  return key;
}

const imported = new WeakMap<Buffer, KeyObject>();

/** TOKEN_KEY itself as a KeyObject, imported once (token sealing and opening use it directly). */
export function keyObject(tokenKey: Buffer): KeyObject {
  let key = imported.get(tokenKey);
  if (!key) {
    key = createSecretKey(tokenKey);
    imported.set(tokenKey, key);
  }
  return key;
}
