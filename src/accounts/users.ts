import type { EntityManager } from '@mikro-orm/postgresql';
import { UserSchema, type User } from '../entities/user.entity.ts';
import { AppError } from '../errors.ts';
import { createApiKey } from './api-keys.ts';

export async function createUser(em: EntityManager, input: { name: string; email?: string | null }): Promise<User> {
  if (input.email && (await em.count(UserSchema, { email: input.email })) > 0) {
    throw new AppError('ERR_VALIDATION', 'A user with that e-mail exists.', {
      errors: { email: ['A user with that e-mail exists.'] },
    });
  }
  const now = new Date();
  const user = em.create(UserSchema, { name: input.name, email: input.email ?? null, createdAt: now, updatedAt: now });
  await em.persistAndFlush(user);
  return user;
}

/** Finds a user by numeric id or e-mail. */
export async function findUser(em: EntityManager, idOrEmail: string): Promise<User | null> {
  return /^\d+$/.test(idOrEmail)
    ? em.findOne(UserSchema, { id: Number(idOrEmail) })
    : em.findOne(UserSchema, { email: idOrEmail });
}

export function describeUser(u: User) {
  return { id: u.id, name: u.name, email: u.email ?? null, created_at: u.createdAt.toISOString() };
}

/**
 * On a database with no users, creates the local user and its first API key and returns
 * the plaintext key (to be printed once). Returns null when users exist. A transaction-scoped
 * advisory lock keeps two instances starting at once from both creating one.
 */
export async function ensureInitialAccount(em: EntityManager): Promise<{ user: User; key: string } | null> {
  return em.transactional(async (tx) => {
    await tx.getConnection().execute('select pg_advisory_xact_lock(727001)', [], 'all', tx.getTransactionContext());
    if ((await tx.count(UserSchema, {})) > 0) return null;
    const now = new Date();
    const user = tx.create(UserSchema, { name: 'local', email: null, createdAt: now, updatedAt: now });
    await tx.persistAndFlush(user);
    const { key } = await createApiKey(tx, user, 'initial');
    return { user, key };
  });
}
