import { z } from 'zod';
import { accountRouter } from '../../routers/account.ts';
import { apiKeyProcedure, publicProcedure, router } from '../../routers/trpc.ts';
import { AppError } from '../../src/errors.ts';

/**
 * The real account router plus procedures that exercise the facade generically: an echo
 * (bodies, coercion, validation), a slow one (graceful shutdown), one that fails.
 */
export const facadeTestRouter = router({
  account: accountRouter,
  test: router({
    echo: apiKeyProcedure
      .meta({ openapi: { method: 'POST', path: '/api/test/echo/{slot}' }, successStatus: 201 })
      .input(
        z.object({
          slot: z.string(),
          name: z.string().min(1).max(20),
          count: z.coerce.number().int().min(0).max(10).default(1),
          flag: z.enum(['0', '1']).default('0'),
        }),
      )
      .output(
        z.object({
          data: z.object({ slot: z.string(), name: z.string(), count: z.number(), flag: z.string(), user: z.number() }),
        }),
      )
      .mutation(({ input, ctx }) => ({ data: { ...input, user: ctx.user.id } })),
    slow: publicProcedure
      .meta({ openapi: { method: 'GET', path: '/api/test/slow' } })
      .input(z.object({ ms: z.coerce.number().int().max(5000).default(300) }))
      .output(z.object({ done: z.boolean() }))
      .query(async ({ input }) => {
        await new Promise((r) => setTimeout(r, input.ms));
        return { done: true };
      }),
    boom: publicProcedure
      .meta({ openapi: { method: 'GET', path: '/api/test/boom' } })
      .input(z.object({ kind: z.enum(['internal', 'unavailable']).default('internal') }))
      .output(z.object({}))
      .query(({ input }) => {
        if (input.kind === 'unavailable') throw new AppError('ERR_UNAVAILABLE', 'Database is down.', { retryAfter: 7 });
        throw new Error('secret internal detail: password=hunter2');
      }),
  }),
});
