import type { InferEntity } from '@mikro-orm/core';
import { defineEntity, p } from '@mikro-orm/core';
import { UserSchema } from './user.entity.ts';

/**
 * An API key. Only a SHA-256 hash of the secret part is stored; `prefix` is the public
 * lookup handle shown in listings and used to find the row before the constant-time compare.
 */
export const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.integer().primary().autoincrement(),
    user: p.manyToOne(UserSchema).deleteRule('cascade'),
    name: p.string().length(200),
    prefix: p.string().length(16).unique(),
    hash: p.string().length(64).hidden(),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});

export type ApiKey = InferEntity<typeof ApiKeySchema>;
