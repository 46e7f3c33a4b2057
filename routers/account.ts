import { z } from 'zod';
import { apiKeyProcedure, router } from './trpc.ts';
import { describeApiKey } from '../src/accounts/api-keys.ts';
import { describeUser } from '../src/accounts/users.ts';

const accountSchema = z.object({
  data: z.object({
    id: z.number().int(),
    name: z.string(),
    email: z.string().nullable(),
    created_at: z.string(),
    api_key: z.object({
      id: z.number().int(),
      name: z.string(),
      prefix: z.string(),
      created_at: z.string(),
      last_used_at: z.string().nullable(),
      revoked_at: z.string().nullable(),
    }),
  }),
});

export const accountRouter = router({
  /** The caller's account and the key it used. */
  get: apiKeyProcedure
    .meta({
      openapi: { method: 'GET', path: '/api/v1/account', summary: "The caller's account", tags: ['account'] },
    })
    .input(z.void())
    .output(accountSchema)
    .query(({ ctx }) => ({ data: { ...describeUser(ctx.user), api_key: describeApiKey(ctx.apiKey) } })),
});
