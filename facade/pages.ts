import Router, { type RouterContext } from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../src/services.ts';
import { loadSharedReport } from '../src/reports/shared.ts';
import { scoringWeights } from '../src/reports/analysis.ts';
import { shareUrl } from '../src/reports/share-address.ts';
import { renderMessagePage, renderPasswordPage, renderReportPage } from '../views/share-page/index.ts';
import { bodyParser } from './body.ts';
import { toErrorResponse } from './errors.ts';
import { contextFromKoa } from './koa-context.ts';
import { clientKey } from '../src/net/client-key.ts';
import { rateLimit } from './rate-limit.ts';

function html(ctx: Context, status: number, body: string) {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.body = body;
}

const notFoundPage = renderMessagePage('Report not found', 'There is no public report at this address.');
const tooManyAttemptsPage = renderMessagePage(
  'Too many attempts',
  'Too many password attempts; wait a while and try again.',
);

/** The `:id` of /reports/:id, as @koa/router parsed it. */
function reportParam(ctx: Context): string {
  return (ctx as RouterContext).params.id ?? '';
}

/**
 * Server-rendered report share pages: GET /reports/{id}, and POST with the password of a
 * password-protected report (attempts are rate limited per address and report, and per report
 * from all addresses together, so many networks do not add up to many guesses).
 */
export function pagesRouter(services: Services): Router {
  const r = new Router();
  const weights = scoringWeights(services.config);
  const attempts = rateLimit(services.stores, {
    name: 'share-password',
    max: services.config.SHARE_PASSWORD_ATTEMPTS,
    windowMs: 15 * 60_000,
    id: (ctx) => `${clientKey(ctx.ip)}:${reportParam(ctx)}`,
    onStoreError: 'closed',
    log: services.log,
    metrics: services.metrics,
  });
  const reportAttempts = rateLimit(services.stores, {
    name: 'share-password-report',
    max: services.config.SHARE_PASSWORD_REPORT_ATTEMPTS,
    windowMs: 15 * 60_000,
    id: (ctx) => reportParam(ctx),
    onStoreError: 'closed',
    log: services.log,
    metrics: services.metrics,
  });

  const show = async (ctx: Context, password?: string) => {
    const shared = await loadSharedReport(contextFromKoa(services, ctx).em, reportParam(ctx), password);
    if (shared.kind === 'missing') return html(ctx, 404, notFoundPage);
    if (shared.kind === 'visible') {
      const { PUBLIC_URL } = services.config;
      const pageUrl = PUBLIC_URL ? shareUrl(shared.report.shareId, PUBLIC_URL) : undefined;
      return html(ctx, 200, renderReportPage(shared.report, { weights, pageUrl }));
    }
    return html(
      ctx,
      password === undefined ? 200 : 401,
      renderPasswordPage(shared.shareId, password === undefined ? undefined : 'That password is not right.'),
    );
  };

  r.get('/reports/:id', (ctx) => show(ctx));
  r.post(
    '/reports/:id',
    async (ctx, next) => {
      try {
        await attempts(ctx, async () => {
          await reportAttempts(ctx, next);
        });
      } catch (err) {
        // The same decision as every other route (status, Retry-After), answered as a page.
        const res = toErrorResponse(err);
        if (res.body.code !== 'ERR_RATE_LIMITED') throw err;
        ctx.set(res.headers);
        return html(ctx, 429, tooManyAttemptsPage);
      }
    },
    bodyParser(16 * 1024),
    async (ctx) => {
      const body = (ctx.request.body ?? {}) as Record<string, unknown>;
      const password = typeof body.password === 'string' ? body.password : '';
      await show(ctx, password);
    },
  );
  return r;
}
