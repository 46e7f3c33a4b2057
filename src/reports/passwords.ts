/**
 * @node-rs/argon2, imported on the first password hashed or checked: its native module holds
 * about 11 MB resident, which a process that serves no password-protected report never needs.
 */
let argon2: Promise<typeof import('@node-rs/argon2')> | undefined;
const library = () => (argon2 ??= import('@node-rs/argon2'));

/**
 * Report share passwords are chosen by people, so they get a slow, salted hash (Argon2id,
 * the library's defaults) rather than the fast hash used for high-entropy API keys.
 */
export async function hashPassword(password: string): Promise<string> {
  return (await library()).hash(password);
}

/** Constant-time verification (done inside argon2); false for a malformed stored hash. */
export async function verifyPassword(stored: string | null | undefined, given: string): Promise<boolean> {
  if (!stored) return false;
  try {
    return await (await library()).verify(stored, given);
  } catch {
    return false;
  }
}
