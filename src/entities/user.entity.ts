import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** An account: the owner of API keys, reports and sites. */
export const UserSchema = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.integer().primary().autoincrement(),
    name: p.string().length(200),
    email: p.string().length(320).nullable().unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export type User = InferEntity<typeof UserSchema>;
