/**
 * Events for webhooks, signed as the Standard Webhooks specification says
 * (https://www.standardwebhooks.com/): `webhook-id`, `webhook-timestamp` and
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the
 * base64-decoded part of the `whsec_` secret.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WebhookDeliverySchema, WebhookSchema, type WebhookEvent } from '../entities/webhook.entity.ts';
import type { JobQueue } from '../queue/queue.ts';

export const DELIVERY_QUEUE = 'webhook-send';
/**
 * The delivery queue before it took WEBHOOK_KEY_CONCURRENCY slots per account (a standard
 * queue cannot become a singleton one): pending deliveries are sent again to
 * {@link DELIVERY_QUEUE} at start, then it is dropped.
 */
export const LEGACY_DELIVERY_QUEUE = 'webhook-delivery';

/**
 * The queue options of a delivery: one of its account's `slots` (one active job per
 * singleton key, every instance together), and its place in its account's own line, so the
 * k-th pending delivery of every account goes before any account's (k+1)-th.
 */
export function deliveryJobOptions(userId: number, deliveryId: number, slots: number, place: number) {
  return { singletonKey: `user-${userId}#${deliveryId % slots}`, priority: -place };
}

/** The account's deliveries still pending: where its next one stands in its own line. */
async function pendingDeliveriesOf(tx: EntityManager, userId: number): Promise<number> {
  const [row] = await tx.execute<Array<{ pending: number }>>(
    `select count(*)::int as pending from webhook_deliveries d join webhooks w on w.id = d.webhook_id
      where w.user_id = ? and d.status = 'pending'`,
    [userId],
  );
  return row?.pending ?? 0;
}

/** Attempts per delivery (the first and its retries, with exponential backoff between them). */
export const DELIVERY_ATTEMPTS = 6;

export const webhookEvents = ['audit.completed', 'audit.failed', 'audit.regressed', 'report.grade_changed'] as const;

/** A new signing secret: `whsec_` and the base64 of 24 random bytes. */
export function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** The `webhook-signature` value for one message. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * Records `event` for every webhook of `userId` that listens to it and queues its delivery,
 * in `tx`'s transaction: the deliveries exist exactly when what they tell of was committed.
 */
export async function emitEvent(
  tx: EntityManager,
  queue: JobQueue,
  slots: number,
  userId: number,
  event: WebhookEvent,
  data: Record<string, unknown>,
): Promise<void> {
  const hooks = await tx.find(WebhookSchema, { user: userId, disabledAt: null });
  const listening = hooks.filter((h) => h.events.includes(event));
  if (listening.length === 0) return;
  const ahead = await pendingDeliveriesOf(tx, userId);
  const timestamp = new Date().toISOString();
  const deliveries = listening.map((hook) =>
    tx.create(WebhookDeliverySchema, {
      webhook: hook,
      messageId: `msg_${randomUUID().replaceAll('-', '')}`,
      event,
      payload: { type: event, timestamp, data },
      status: 'pending',
      attempts: 0,
    }),
  );
  await tx.flush();
  await queue.insert(
    DELIVERY_QUEUE,
    deliveries.map((d, i) => ({
      data: { deliveryId: d.id },
      ...deliveryJobOptions(userId, d.id, slots, ahead + i),
    })),
    tx,
  );
}
