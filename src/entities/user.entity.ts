import type { InferEntity } from '@mikro-orm/core';
import { defineEntity, p } from '@mikro-orm/core';

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
    /**
     * Changes in every transaction that writes the user's reports (database triggers); keys
     * the exact search totals (src/reports/search-totals.ts). Not loaded with the user.
     */
    reportsVersion: p.bigint('string').default(0).lazy(),
  },
});

export type User = InferEntity<typeof UserSchema>;
