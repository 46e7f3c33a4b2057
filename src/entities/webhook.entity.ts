import type { InferEntity } from '@mikro-orm/core';
import { defineEntity, p } from '@mikro-orm/core';
import { UserSchema } from './user.entity.ts';

export type WebhookEvent = 'audit.completed' | 'audit.failed' | 'audit.regressed' | 'report.grade_changed';
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/**
 * A URL told about events. `secret` (`whsec_` and base64 of 24 random bytes) signs each
 * delivery; it is shown once, at registration, and never serialised after.
 */
export const WebhookSchema = defineEntity({
  name: 'Webhook',
  tableName: 'webhooks',
  indexes: [{ properties: ['user', 'id'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    user: p.manyToOne(UserSchema).deleteRule('cascade'),
    url: p.string().length(2048),
    events: p.json<WebhookEvent[]>(),
    secret: p.string().length(64),
    /** Deliveries in a row that failed every attempt; a delivered one sets it back to 0. */
    failuresInRow: p.integer().default(0),
    /** Set when WEBHOOK_DISABLE_AFTER failed deliveries in a row disabled it; cleared when enabled again. */
    disabledAt: p.datetime().nullable(),
    disabledReason: p.string().length(512).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type Webhook = InferEntity<typeof WebhookSchema>;

/** One event sent to one webhook, with every attempt's outcome summed up. */
export const WebhookDeliverySchema = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  indexes: [{ properties: ['webhook', 'id'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    webhook: p.manyToOne(WebhookSchema).deleteRule('cascade'),
    /** The `webhook-id` header: the same on every attempt, so receivers can drop duplicates. */
    messageId: p.string().length(64).unique(),
    event: p.string().length(32).$type<WebhookEvent>(),
    payload: p.json<Record<string, unknown>>(),
    status: p.string().length(16).$type<DeliveryStatus>(),
    attempts: p.smallint().default(0),
    responseStatus: p.smallint().nullable(),
    error: p.string().length(512).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export type WebhookDelivery = InferEntity<typeof WebhookDeliverySchema>;
