import { hash, verify } from '@node-rs/argon2';

/**
 * Report share passwords are chosen by people, so they get a slow, salted hash (Argon2id,
 * the library's defaults) rather than the fast hash used for high-entropy API keys.
 */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

/** Constant-time verification (done inside argon2); false for a malformed stored hash. */
export async function verifyPassword(stored: string | null | undefined, given: string): Promise<boolean> {
  if (!stored) return false;
  try {
    return await verify(stored, given);
  } catch {
    return false;
  }
}
