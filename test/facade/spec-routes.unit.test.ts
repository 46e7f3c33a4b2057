import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { buildRouteTable } from '../../facade/route-table.ts';
import { SITEVERIFY_PER_MINUTE } from '../../src/captcha/siteverify-limit.ts';
import { appRouter } from '../../routers/root.ts';

/** The specification's endpoint tables (section 4) and limits (section 8), as it states them. */
const specRoutes = [
  'GET /api/v1/projects',
  'DELETE /api/v1/projects/{project}',
  'GET /api/v1/reports',
  'GET /api/v1/reports/{id}',
  'POST /api/v1/reports',
  'PUT /api/v1/reports/{id}',
  'DELETE /api/v1/reports/{id}',
  'POST /api/v1/challenges',
  'GET /api/v1/challenges/{challenge}/asset',
  'POST /api/v1/challenges/{challenge}/verify',
  'POST /api/v1/challenges/{challenge}/regenerate',
  'POST /api/v2/challenges',
  'POST /api/v2/challenges/{challenge}/verify',
  'POST /api/v3/challenges',
  'POST /api/siteverify',
  'POST /api/v1/siteverify',
];
const specLimits: Record<string, number> = {
  'POST /api/v1/challenges': 60,
  'GET /api/v1/challenges/{challenge}/asset': 120,
  'POST /api/v1/challenges/{challenge}/verify': 60,
  'POST /api/v1/challenges/{challenge}/regenerate': 30,
  'POST /api/v2/challenges': 60,
  'POST /api/v2/challenges/{challenge}/verify': 60,
  'POST /api/v3/challenges': 60,
  'POST /api/siteverify': 120,
  'POST /api/v1/siteverify': 120,
};
/** Routes beyond the spec, each required by an issue (PATCH: issue 12, phpRank's resource route; checks: issue 30). */
const extraRoutes = ['GET /api/v1/account', 'PATCH /api/v1/reports/{id}', 'GET /api/v1/checks'];
/** Issue 14: siteverify at the providers' paths, with the spec's siteverify limit. */
const providerSiteverify = ['POST /turnstile/v0/siteverify', 'POST /recaptcha/api/siteverify', 'POST /siteverify'];
extraRoutes.push(...providerSiteverify);
/** Issue 32: site audits, their runs, and webhooks. */
extraRoutes.push(
  'POST /api/v1/audits',
  'GET /api/v1/audits',
  'GET /api/v1/audits/{id}',
  'GET /api/v1/audits/{id}/runs',
  'DELETE /api/v1/audits/{id}',
  'POST /api/v1/webhooks',
  'GET /api/v1/webhooks',
  'GET /api/v1/webhooks/{id}/deliveries',
  'POST /api/v1/webhooks/{id}/enable',
  'DELETE /api/v1/webhooks/{id}',
);
/** Issue 45: a site's gateway settings (the forward-auth endpoint itself is no procedure: facade/gateway.ts). */
extraRoutes.push(
  'GET /api/v1/sites/{sitekey}/gateway',
  'PUT /api/v1/sites/{sitekey}/gateway',
  'GET /api/v1/sites/{sitekey}/gateway/report',
);
/** Issue 54: a budget asserted on a report, and an audit's budget, runs and baseline. */
extraRoutes.push('POST /api/v1/reports/{id}/assert', 'PUT /api/v1/audits/{id}/budget');
/** Private Access Tokens: a challenge's attestation route, limited like the v2 routes. */
const privateToken = 'GET /api/v2/challenges/{challenge}/private-token';
extraRoutes.push(privateToken);
const extraLimits = { ...Object.fromEntries(providerSiteverify.map((r) => [r, 120])), [privateToken]: 60 };

const specFile = path.resolve(import.meta.dirname, '../../../shared/SPEC.md');

/** Reads `| METHOD | /path |` rows and the `| METHOD /path | N/minute |` limit rows out of the specification (kept outside the repository; this test runs where it is present). */
function parseSpec(text: string) {
  const routes = new Set<string>();
  const limits: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const route = /^\|\s*(GET|POST|PUT|DELETE|PATCH)\s*\|\s*(\/[^\s|]+)\s*\|/.exec(line);
    if (route) routes.add(`${route[1]} ${route[2]}`);
    const limit = /^\|\s*(GET|POST|PUT|DELETE|PATCH) (\/[^\s|]+)\s*\|\s*(\d+)\/minute\s*\|/.exec(line);
    if (limit) limits[`${limit[1]} ${limit[2]}`] = Number(limit[3]);
  }
  return { routes: [...routes].sort(), limits };
}

describe('the mounted route table', () => {
  const table = buildRouteTable(appRouter);
  const mounted = table.map((r) => `${r.method} ${r.path}`).sort();

  it('equals the spec’s routes, route for route (plus the issue-required account and PATCH routes)', () => {
    expect(mounted).toEqual([...specRoutes, ...extraRoutes].sort());
  });

  it('carries the spec’s rate limit on every challenge route', () => {
    // Siteverify's limit is counted by its procedure, per site (raisable there), not by the facade.
    for (const r of table.filter((r) => r.protocol)) expect(r.meta.rateLimit).toBeUndefined();
    const limitOf = (r: (typeof table)[number]) => r.meta.rateLimit?.max ?? (r.protocol && SITEVERIFY_PER_MINUTE);
    const actual = Object.fromEntries(
      table.filter((r) => limitOf(r)).map((r) => [`${r.method} ${r.path}`, limitOf(r)]),
    );
    expect(actual).toEqual({ ...specLimits, ...extraLimits });
    for (const r of table.filter((r) => r.meta.rateLimit)) expect(r.meta.rateLimit!.windowMs).toBe(60_000);
  });

  it.runIf(existsSync(specFile))('matches SPEC.md as it stands beside the repository', () => {
    const spec = parseSpec(readFileSync(specFile, 'utf8'));
    expect(spec.routes).toEqual([...specRoutes].sort());
    expect(spec.limits).toEqual(specLimits);
  });
});
