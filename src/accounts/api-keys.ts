import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.ts';
import { ApiKeySchema, type ApiKey } from '../entities/api-key.entity.ts';
import type { User } from '../entities/user.entity.ts';

/**
 * Key format: `ak_<prefix>_<secret>`: a 10-hex-digit lookup prefix and 32 random bytes
 * (base64url). Only SHA-256 of the whole key is stored. A slow password hash is not needed
 * here: the key has 256 bits of entropy, so a fast hash cannot be brute-forced and keeps
 * per-request authentication cheap.
 */
const keyPattern = /^ak_([0-9a-f]{10})_([A-Za-z0-9_-]{43})$/;

/** How stale `last_used_at` may get before a request writes it again (saves a write per call). */
const lastUsedResolutionMs = 60_000;

/** A hash no key has, compared against when the prefix is unknown so timing does not tell. */
const unknownKeyHash = Buffer.alloc(32);

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

export function generateApiKey(): { key: string; prefix: string } {
  const prefix = randomBytes(5).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { key: `ak_${prefix}_${secret}`, prefix };
}

/** Creates a key for `user` and returns the row and the plaintext key, which is never stored. */
export async function createApiKey(
  em: EntityManager,
  user: User,
  name = 'default',
): Promise<{ apiKey: ApiKey; key: string }> {
  const { key, prefix } = generateApiKey();
  const apiKey = em.create(ApiKeySchema, {
    user,
    name,
    prefix,
    hash: hashApiKey(key).toString('hex'),
    createdAt: new Date(),
    lastUsedAt: null,
    revokedAt: null,
  });
  await em.persistAndFlush(apiKey);
  return { apiKey, key };
}

/** Extracts the token from an `Authorization: Bearer <token>` header; undefined if malformed. */
export function parseBearer(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * Resolves an Authorization header to a live API key (with its user loaded).
 * Throws AppError UNAUTHORIZED for a missing, malformed, unknown or revoked key.
 */
export async function authenticateApiKey(em: EntityManager, authorization: string | undefined): Promise<ApiKey> {
  const token = parseBearer(authorization);
  if (!token) {
    throw authorization
      ? new AppError('UNAUTHORIZED', 'Malformed Authorization header; expected "Bearer <API key>".', { code: 'ERR_API_KEY_INVALID' })
      : new AppError('UNAUTHORIZED', 'Missing API key.', { code: 'ERR_API_KEY_MISSING' });
  }
  const match = keyPattern.exec(token);
  const row = match ? await em.findOne(ApiKeySchema, { prefix: match[1] }, { populate: ['user'] }) : null;
  const expected = row ? Buffer.from(row.hash, 'hex') : unknownKeyHash;
  const matches = timingSafeEqual(expected, hashApiKey(token)) && row !== null;
  if (!matches || !row || row.revokedAt) {
    throw new AppError('UNAUTHORIZED', 'Invalid or revoked API key.', { code: 'ERR_API_KEY_INVALID' });
  }
  await touchLastUsed(em, row);
  return row;
}

async function touchLastUsed(em: EntityManager, row: ApiKey): Promise<void> {
  const now = new Date();
  if (row.lastUsedAt && now.getTime() - row.lastUsedAt.getTime() < lastUsedResolutionMs) return;
  // A direct update: no unit-of-work flush, so the request's own changes are not dragged in.
  await em.nativeUpdate(ApiKeySchema, { id: row.id }, { lastUsedAt: now });
  row.lastUsedAt = now;
}

/** Keys of one user, or all keys, newest first. */
export async function listApiKeys(em: EntityManager, userId?: number): Promise<ApiKey[]> {
  return em.find(ApiKeySchema, userId === undefined ? {} : { user: userId }, {
    orderBy: { id: 'desc' },
    populate: ['user'],
  });
}

/** Revokes a key by numeric id or prefix. Returns the key, or null if there is none. */
export async function revokeApiKey(em: EntityManager, idOrPrefix: string, userId?: number): Promise<ApiKey | null> {
  const where = /^\d+$/.test(idOrPrefix) ? { id: Number(idOrPrefix) } : { prefix: idOrPrefix.replace(/^ak_/, '') };
  const row = await em.findOne(ApiKeySchema, userId === undefined ? where : { ...where, user: userId });
  if (!row) return null;
  if (!row.revokedAt) {
    row.revokedAt = new Date();
    await em.flush();
  }
  return row;
}

/** The public view of a key: never the hash. */
export function describeApiKey(k: ApiKey) {
  return {
    id: k.id,
    name: k.name,
    prefix: `ak_${k.prefix}`,
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt ? k.lastUsedAt.toISOString() : null,
    revoked_at: k.revokedAt ? k.revokedAt.toISOString() : null,
  };
}
