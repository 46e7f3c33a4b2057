import { createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';

/** What a key derived from TOKEN_KEY is for; each purpose has its own, so none stands in for another. */
export type SubkeyPurpose = 'answer-derive' | 'env-proof' | 'gateway-clearance' | 'work-ticket';

/** Per TOKEN_KEY: the key itself (under `token`) and each derived subkey, as KeyObjects. */
const imported = new WeakMap<Buffer, Map<SubkeyPurpose | 'token', KeyObject>>();

function cached(tokenKey: Buffer, name: SubkeyPurpose | 'token', make: () => Buffer): KeyObject {
  let keys = imported.get(tokenKey);
  if (!keys) imported.set(tokenKey, (keys = new Map<SubkeyPurpose | 'token', KeyObject>()));
  let key = keys.get(name);
  if (!key) {
    key = createSecretKey(make());
    keys.set(name, key);
  }
  return key;
}

/**
 * HKDF-SHA-256 of TOKEN_KEY (info `auditcaptcha/<purpose>`, 32 bytes), as a KeyObject, derived
 * once per key and purpose rather than on every call.
 */
export function subkey(tokenKey: Buffer, purpose: SubkeyPurpose): KeyObject {
  return cached(tokenKey, purpose, () =>
    Buffer.from(hkdfSync('sha256', tokenKey, Buffer.alloc(0), `auditcaptcha/${purpose}`, 32)),
  );
}

/** TOKEN_KEY itself as a KeyObject, imported once (token sealing and opening use it directly). */
export function keyObject(tokenKey: Buffer): KeyObject {
  return cached(tokenKey, 'token', () => tokenKey);
}
