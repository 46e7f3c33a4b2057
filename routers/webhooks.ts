import { z } from 'zod';
import { apiKeyProcedure, router } from './trpc.ts';
import {
  deleteWebhook,
  describeDelivery,
  enableWebhook,
  describeWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  registerWebhook,
} from '../src/webhooks/webhooks.ts';
import { webhookEvents } from '../src/webhooks/events.ts';
import { notFound } from '../src/errors.ts';
import { parseId as parseNumericId } from '../src/input/ids.ts';

const event = z.enum(webhookEvents);
const webhook = z.object({
  id: z.number().int(),
  url: z.string(),
  events: z.array(event),
  /** False once WEBHOOK_DISABLE_AFTER deliveries in a row failed every attempt; `enable` turns it on again. */
  enabled: z.boolean(),
  /** Deliveries in a row that failed every attempt (0 after a delivered one). */
  failures_in_row: z.number().int(),
  disabled_at: z.string().nullable(),
  disabled_reason: z.string().nullable(),
  created_at: z.string(),
});
const delivery = z.object({
  id: z.number().int(),
  /** The `webhook-id` header of every attempt. */
  message_id: z.string(),
  event,
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  response_status: z.number().int().nullable(),
  error: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
const webhookId = z.coerce.string();

function parseId(text: string): number {
  const id = parseNumericId(text);
  if (id === undefined) throw notFound('Webhook');
  return id;
}

export const webhooksRouter = router({
  /** Registers a URL for events; the answer holds the signing secret, shown this once. */
  create: apiKeyProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/webhooks',
        summary: 'Register a webhook',
        tags: ['webhooks'],
        contentTypes: ['application/json', 'application/x-www-form-urlencoded'],
      },
      successStatus: 201,
      errorCodes: ['ERR_WEBHOOK_LIMIT'],
      credential: true,
    })
    .input(
      z.object({
        url: z.string().max(2048),
        events: z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(event).min(1)),
      }),
    )
    .output(z.object({ data: webhook.extend({ secret: z.string() }), status: z.literal(201) }))
    .mutation(async ({ ctx, input }) => {
      const hook = await registerWebhook(ctx.em, ctx.config, ctx.user.id, input);
      return { data: { ...describeWebhook(hook), secret: hook.secret }, status: 201 as const };
    }),

  /** The caller's webhooks (never their secrets). */
  list: apiKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/api/v1/webhooks', summary: 'List webhooks', tags: ['webhooks'] } })
    .input(z.object({}).optional())
    .output(z.object({ data: z.array(webhook), status: z.literal(200) }))
    .query(async ({ ctx }) => ({
      data: (await listWebhooks(ctx.em, ctx.user.id)).map(describeWebhook),
      status: 200 as const,
    })),

  /** The webhook's latest deliveries (at most 100), newest first, with their outcome. */
  deliveries: apiKeyProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/webhooks/{id}/deliveries',
        summary: "List a webhook's deliveries",
        tags: ['webhooks'],
      },
    })
    .input(z.object({ id: webhookId }))
    .output(z.object({ data: z.array(delivery), status: z.literal(200) }))
    .query(async ({ ctx, input }) => {
      const hook = await getWebhook(ctx.em, ctx.user.id, parseId(input.id));
      return { data: (await listDeliveries(ctx.em, hook.id)).map(describeDelivery), status: 200 as const };
    }),

  /** Enables a webhook that failed deliveries disabled (new events are delivered again). */
  enable: apiKeyProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/webhooks/{id}/enable',
        summary: 'Enable a disabled webhook',
        tags: ['webhooks'],
      },
    })
    .input(z.object({ id: webhookId }))
    .output(z.object({ data: webhook, status: z.literal(200) }))
    .mutation(async ({ ctx, input }) => {
      const hook = await enableWebhook(ctx.em, ctx.user.id, parseId(input.id));
      return { data: describeWebhook(hook), status: 200 as const };
    }),

  /** Deletes the webhook and its deliveries. */
  delete: apiKeyProcedure
    .meta({
      openapi: { method: 'DELETE', path: '/api/v1/webhooks/{id}', summary: 'Delete a webhook', tags: ['webhooks'] },
      credential: true,
    })
    .input(z.object({ id: webhookId }))
    .output(
      z.object({
        id: z.number().int(),
        object: z.literal('webhook'),
        deleted: z.literal(true),
        status: z.literal(200),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const id = parseId(input.id);
      await deleteWebhook(ctx.em, ctx.user.id, id);
      return { id, object: 'webhook' as const, deleted: true as const, status: 200 as const };
    }),
});
