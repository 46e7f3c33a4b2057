import { z } from 'zod';
import { apiKeyProcedure, router } from './trpc.ts';
import { readAnalytics } from '../src/analytics/read.ts';

/** Challenge analytics of the caller's sites (the console's charts); typed clients on /trpc only. */
export const analyticsRouter = router({
  /** One window (last hour, day or 30 days) of all the caller's sites, or of one (404 unless theirs). */
  get: apiKeyProcedure
    .input(z.object({ range: z.enum(['hour', 'day', 'month']), sitekey: z.string().min(1).max(64).optional() }))
    .query(async ({ ctx, input }) => ({ data: await readAnalytics(ctx.em, ctx.user.id, input) })),
});
