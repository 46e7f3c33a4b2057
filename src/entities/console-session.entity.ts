import { defineEntity, p } from '@mikro-orm/core';
import { ApiKeySchema } from './api-key.entity.ts';

/**
 * A console session (docs/console.md): opened by signing in with an API key, it acts as that
 * key until `expiresAt`, or until the key is revoked (every use checks the key). Only SHA-256
 * of the session secret is stored, with its lookup prefix, like API keys.
 */
export const ConsoleSessionSchema = defineEntity({
  name: 'ConsoleSession',
  tableName: 'console_sessions',
  properties: {
    id: p.integer().primary().autoincrement(),
    apiKey: p.manyToOne(ApiKeySchema).deleteRule('cascade').index(),
    prefix: p.string().length(16).unique(),
    hash: p.string().length(64).hidden(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime().index(),
  },
});
