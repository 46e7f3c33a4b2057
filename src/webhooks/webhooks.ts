/**
 * Webhooks: registration (the URL through the analyzer's SSRF guard, the secret shown once),
 * lists, deletion, and the delivery job. A delivery is POSTed to the address the guard pinned,
 * never following redirects; a 2xx answer delivers it, anything else is retried by the queue
 * with exponential backoff, up to {@link DELIVERY_ATTEMPTS} attempts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { request } from 'undici';
import { AddressGuard, parseTargetUrl } from '../analyzer/address-guard.ts';
import { createPinnedAgent } from '../analyzer/dispatcher.ts';
import { AnalyzeError } from '../analyzer/errors.ts';
import type { Config } from '../config.ts';
import {
  WebhookDeliverySchema,
  WebhookSchema,
  type Webhook,
  type WebhookDelivery,
  type WebhookEvent,
} from '../entities/webhook.entity.ts';
import { notFound, validationError } from '../errors.ts';
import { analyzerOptionsFrom } from '../reports/analysis.ts';
import { DELIVERY_ATTEMPTS, newSecret, sign } from './events.ts';

/** The guard's verdict on a webhook URL, before it is stored and again before every delivery. */
async function pinnedGuard(config: Config, url: URL): Promise<AddressGuard> {
  const guard = new AddressGuard(analyzerOptionsFrom(config));
  try {
    await guard.pin(url);
    return guard;
  } catch (err) {
    guard.close();
    throw err;
  }
}

/** Registers a webhook; the answer is the only time `secret` is shown. */
export async function registerWebhook(
  em: EntityManager,
  config: Config,
  userId: number,
  input: { url: string; events: WebhookEvent[] },
): Promise<Webhook> {
  let url: URL;
  try {
    url = parseTargetUrl(input.url);
    (await pinnedGuard(config, url)).close();
  } catch (err) {
    if (err instanceof AnalyzeError) throw validationError('url', err.message, { reason: err.reason });
    throw err;
  }
  return em.transactional(async (tx) => {
    // The account's row locked: two registrations at once cannot both pass the cap.
    await tx.execute('select id from users where id = ? for update', [userId]);
    const most = config.WEBHOOK_MAX_PER_ACCOUNT;
    if ((await tx.count(WebhookSchema, { user: userId })) >= most) {
      throw validationError(
        'url',
        `An account may have at most ${most} webhooks (WEBHOOK_MAX_PER_ACCOUNT); delete one first.`,
        { code: 'ERR_WEBHOOK_LIMIT' },
      );
    }
    const hook = tx.create(WebhookSchema, {
      user: userId,
      url: url.href,
      events: [...new Set(input.events)],
      secret: newSecret(),
    });
    await tx.flush();
    return hook;
  });
}

/** Enables a webhook that failed deliveries disabled; its count of failures starts again. */
export async function enableWebhook(em: EntityManager, userId: number, id: number): Promise<Webhook> {
  const hook = await getWebhook(em, userId, id);
  hook.disabledAt = null;
  hook.disabledReason = null;
  hook.failuresInRow = 0;
  await em.flush();
  return hook;
}

export async function listWebhooks(em: EntityManager, userId: number): Promise<Webhook[]> {
  return em.find(WebhookSchema, { user: userId }, { orderBy: { id: 'asc' } });
}

export async function getWebhook(em: EntityManager, userId: number, id: number): Promise<Webhook> {
  const hook = await em.findOne(WebhookSchema, { id, user: userId });
  if (!hook) throw notFound('Webhook');
  return hook;
}

export async function deleteWebhook(em: EntityManager, userId: number, id: number): Promise<void> {
  const n = await em.nativeDelete(WebhookSchema, { id, user: userId });
  if (n === 0) throw notFound('Webhook');
}

/** The webhook's deliveries, newest first (at most `limit`). */
export async function listDeliveries(em: EntityManager, webhookId: number, limit = 100): Promise<WebhookDelivery[]> {
  return em.find(WebhookDeliverySchema, { webhook: webhookId }, { orderBy: { id: 'desc' }, limit });
}

export function describeWebhook(hook: Webhook) {
  return {
    id: hook.id,
    url: hook.url,
    events: hook.events,
    enabled: !hook.disabledAt,
    failures_in_row: hook.failuresInRow,
    disabled_at: hook.disabledAt?.toISOString() ?? null,
    disabled_reason: hook.disabledReason ?? null,
    created_at: hook.createdAt.toISOString(),
  };
}

export function describeDelivery(d: WebhookDelivery) {
  return {
    id: d.id,
    message_id: d.messageId,
    event: d.event,
    status: d.status,
    attempts: d.attempts,
    response_status: d.responseStatus ?? null,
    error: d.error ?? null,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}

/** Thrown by an attempt that failed and may be tried again; the queue retries the job. */
class DeliveryFailed extends Error {
  override name = 'DeliveryFailed';
}

/**
 * Settles a delivery that failed its last attempt: its webhook counts one more failed delivery
 * in a row, and is disabled at WEBHOOK_DISABLE_AFTER (its pending deliveries then fail at
 * their next attempt without a request).
 */
async function countFailure(em: EntityManager, config: Config, hook: Webhook): Promise<void> {
  const [row] = await em.execute<Array<{ failures: number }>>(
    'update webhooks set failures_in_row = failures_in_row + 1 where id = ? returning failures_in_row as failures',
    [hook.id],
  );
  const limit = config.WEBHOOK_DISABLE_AFTER;
  if (row && row.failures >= limit) {
    await em.execute(
      'update webhooks set disabled_at = now(), disabled_reason = ? where id = ? and disabled_at is null',
      [
        `Disabled after ${row.failures} deliveries in a row failed every attempt (WEBHOOK_DISABLE_AFTER = ${limit}).`,
        hook.id,
      ],
    );
  }
}

/** One attempt of the `webhook-send` job. */
export async function deliver(em: EntityManager, config: Config, deliveryId: number): Promise<void> {
  const delivery = await em.findOne(WebhookDeliverySchema, { id: deliveryId }, { populate: ['webhook'] });
  if (!delivery || delivery.status !== 'pending') return;
  const hook = delivery.webhook;
  if (hook.disabledAt) {
    delivery.status = 'failed';
    delivery.error = 'The webhook is disabled.';
    await em.flush();
    return;
  }
  const body = JSON.stringify(delivery.payload);
  const timestamp = Math.floor(Date.now() / 1000);
  let responseStatus: number | null = null;
  let error: string | null = null;
  const options = analyzerOptionsFrom(config);
  const url = new URL(hook.url);
  let guard: AddressGuard | undefined;
  try {
    guard = await pinnedGuard(config, url);
    const pinned = createPinnedAgent(guard, options);
    try {
      const res = await request(url, {
        method: 'POST',
        dispatcher: pinned.agent,
        signal: AbortSignal.timeout(config.WEBHOOK_TIMEOUT_MS),
        headers: {
          'content-type': 'application/json',
          'user-agent': options.userAgent,
          'webhook-id': delivery.messageId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': sign(hook.secret, delivery.messageId, timestamp, body),
        },
        body,
      });
      responseStatus = res.statusCode;
      await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      if (res.statusCode < 200 || res.statusCode > 299) error = `The receiver answered HTTP ${res.statusCode}.`;
    } finally {
      await pinned.close();
    }
  } catch (err) {
    error = (err instanceof Error ? err.message : String(err)).slice(0, 512);
  } finally {
    guard?.close();
  }
  delivery.attempts += 1;
  delivery.responseStatus = responseStatus;
  delivery.error = error;
  if (!error) delivery.status = 'delivered';
  else if (delivery.attempts >= DELIVERY_ATTEMPTS) delivery.status = 'failed';
  await em.flush();
  if (delivery.status === 'delivered' && hook.failuresInRow > 0) {
    await em.execute('update webhooks set failures_in_row = 0 where id = ?', [hook.id]);
  }
  if (delivery.status === 'failed') await countFailure(em, config, hook);
  if (delivery.status === 'pending') throw new DeliveryFailed(error ?? 'not delivered');
}
