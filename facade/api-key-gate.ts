import type { Context, Middleware } from 'koa';
import { authenticateApiKey } from '../src/accounts/api-keys.ts';
import type { ApiKey } from '../src/entities/api-key.entity.ts';
import type { Services } from '../routers/context.ts';
import { contextFromKoa, facadeState } from './koa-context.ts';
import { rateLimit } from './rate-limit.ts';

/**
 * Authenticates the Bearer API key (401 otherwise) and counts the request against that
 * key's per-minute limit (429 past it), before anything else runs. REST's API-key routes
 * and /trpc share it, so a key has one budget whichever way it calls. The limiter fails
 * open: a store outage must not take the API down. A known key is answered from the
 * short-lived key cache (src/accounts/api-keys.ts), which revocation clears at once.
 * `authenticate` replaces the Bearer check (the console's session cookie,
 * facade/console-session.ts): the key it answers shares the same budget.
 */
export function apiKeyGate(
  services: Services,
  opts: { cost?: (ctx: Context) => number; authenticate?: (ctx: Context) => Promise<ApiKey> } = {},
): Middleware {
  const perKeyLimit = rateLimit(services.stores, {
    name: 'api',
    max: services.config.API_RATE_LIMIT,
    windowMs: 60_000,
    // Runs after the key was authenticated below, so it is always set here.
    id: (ctx) => `key:${facadeState(ctx).apiKey!.id}`,
    onStoreError: 'open',
    log: services.log,
    metrics: services.metrics,
  });
  return async (ctx, next) => {
    const em = contextFromKoa(services, ctx).em;
    facadeState(ctx).apiKey = opts.authenticate
      ? await opts.authenticate(ctx)
      : await authenticateApiKey(em, ctx.get('Authorization') || undefined, {
          stores: services.stores,
          log: services.log,
        });
    // A request doing `cost` calls (a /trpc batch) counts as that many; past the limit the
    // whole request is refused.
    const cost = opts.cost?.(ctx) ?? 1;
    for (let i = 1; i < cost; i++) await perKeyLimit(ctx, async () => {});
    await perKeyLimit(ctx, next);
  };
}
