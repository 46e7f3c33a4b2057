import { createCipheriv, createDecipheriv } from 'node:crypto';
import { pooledRandomBytes } from './random-bytes.ts';
import { subkey } from './subkeys.ts';

/**
 * v1 answers are checked against a keyed hash, but the asset route must draw them, so the
 * challenge state also keeps the answer sealed (AES-256-GCM under a key derived from
 * TOKEN_KEY). A read of the store alone reveals no answer.
 */
const answerKey = (tokenKey: Buffer) => subkey(tokenKey, 'answer-seal');

export function sealAnswer(answer: string, tokenKey: Buffer): string {
  const iv = pooledRandomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', answerKey(tokenKey), iv);
  const body = Buffer.concat([cipher.update(answer, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

export function openAnswer(sealed: string, tokenKey: Buffer): string {
  const raw = Buffer.from(sealed, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', answerKey(tokenKey), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
}
