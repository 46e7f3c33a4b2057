import { z } from 'zod';
import { apiKeyProcedure, router } from './trpc.ts';
import { createApiKey, describeApiKey, listApiKeys, revokeApiKey } from '../src/accounts/api-keys.ts';
import { notFound } from '../src/errors.ts';

/** The caller's own API keys, for typed clients on /trpc and the console; not part of the REST surface. */
export const keysRouter = router({
  /** Every key of the caller's account, newest first, with its last use; never a secret. */
  list: apiKeyProcedure.query(async ({ ctx }) => ({
    data: (await listApiKeys(ctx.em, ctx.user.id)).map((k) => ({
      ...describeApiKey(k),
      current: k.id === ctx.apiKey.id,
    })),
  })),
  /** A new key for the caller's account; the key itself is in this answer only. */
  create: apiKeyProcedure
    .meta({ credential: true })
    .input(z.object({ name: z.string().trim().min(1).max(200) }))
    .mutation(async ({ ctx, input }) => {
      const { apiKey, key } = await createApiKey(ctx.em, ctx.user, input.name);
      return { data: { ...describeApiKey(apiKey), key } };
    }),
  /** Revokes one of the caller's keys at once (its console sessions end with it); 404 for any other. */
  revoke: apiKeyProcedure
    .meta({ credential: true })
    .input(z.object({ id: z.number().int().positive() }))
    .mutation(async ({ ctx, input }) => {
      const row = await revokeApiKey(ctx.em, String(input.id), ctx.user.id, ctx.stores);
      if (!row) throw notFound('API key');
      return { data: describeApiKey(row) };
    }),
});
