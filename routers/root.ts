import { router } from './trpc.ts';
import { accountRouter } from './account.ts';
import { projectsRouter } from './projects.ts';
import { reportsRouter } from './reports.ts';
import { checksRouter } from './checks.ts';
import { challengesRouter } from './challenges.ts';
import { siteverifyRouter } from './siteverify.ts';
import { sitesRouter } from './sites.ts';
import { keysRouter } from './keys.ts';
import { analyticsRouter } from './analytics.ts';
import { auditsRouter } from './audits.ts';
import { webhooksRouter } from './webhooks.ts';
import { gatewayRouter } from './gateway.ts';

/** Every procedure of the service. The REST facade, /trpc and the OpenAPI document derive from it. */
export const appRouter = router({
  account: accountRouter,
  projects: projectsRouter,
  reports: reportsRouter,
  checks: checksRouter,
  challenges: challengesRouter,
  siteverify: siteverifyRouter,
  sites: sitesRouter,
  keys: keysRouter,
  analytics: analyticsRouter,
  audits: auditsRouter,
  webhooks: webhooksRouter,
  gateway: gatewayRouter,
});

/**
 * The router's type, for typed clients outside this repository (`createTRPCClient<AppRouter>`,
 * docs/api.md); tests here use it too.
 * @public
 */
export type AppRouter = typeof appRouter;

/**
 * What typed clients call on /trpc: the procedures that authenticate with an API key, and
 * siteverify (a site's server calls it with the site's secret, under the same per-site limit
 * as on its REST paths). Browser procedures are served by their REST routes only, where their
 * origin checks and per-address limits apply.
 */
export const typedClientRouter = router({
  siteverify: siteverifyRouter,
  account: accountRouter,
  projects: projectsRouter,
  reports: reportsRouter,
  sites: sitesRouter,
  keys: keysRouter,
  analytics: analyticsRouter,
  audits: auditsRouter,
  webhooks: webhooksRouter,
  gateway: gatewayRouter,
});

/** The type the console's typed client (console/api.ts) is made for. */
export type TypedClientRouter = typeof typedClientRouter;
