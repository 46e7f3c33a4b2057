import Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../routers/context.ts';
import { AppError } from '../src/errors.ts';
import { loadSharedReport } from '../src/reports/shared.ts';
import { renderMessagePage, renderPasswordPage, renderReportPage } from '../src/reports/share-page.ts';
import { bodyParser } from './body.ts';
import { contextFromKoa } from './koa-context.ts';
import { rateLimit } from './rate-limit.ts';

function html(ctx: Context, status: number, body: string) {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.body = body;
}

const notFoundPage = renderMessagePage('Report not found', 'There is no public report at this address.');

/**
 * Server-rendered report share pages: GET /reports/{id}, and POST with the password of a
 * password-protected report (attempts per address and report are rate limited).
 */
export function pagesRouter(services: Services): Router {
  const r = new Router();
  const attempts = rateLimit(services.stores, {
    name: 'share-password',
    max: services.config.SHARE_PASSWORD_ATTEMPTS,
    windowMs: 15 * 60_000,
    id: (ctx) => `${ctx.ip}:${ctx.params.id}`,
    onStoreError: 'closed',
    log: services.log,
    metrics: services.metrics,
  });

  const show = async (ctx: Context, password?: string) => {
    const shared = await loadSharedReport(contextFromKoa(services, ctx).em, ctx.params.id!, password);
    if (shared.kind === 'missing') return html(ctx, 404, notFoundPage);
    if (shared.kind === 'visible') return html(ctx, 200, renderReportPage(shared.report));
    return html(ctx, password === undefined ? 200 : 401, renderPasswordPage(shared.shareId, password === undefined ? undefined : 'That password is not right.'));
  };

  r.get('/reports/:id', (ctx) => show(ctx));
  r.post('/reports/:id', async (ctx, next) => {
    try {
      await attempts(ctx, next);
    } catch (err) {
      if (err instanceof AppError && err.code === 'RATE_LIMITED') {
        for (const [k, v] of Object.entries({ 'Retry-After': String(err.retryAfter ?? 60) })) ctx.set(k, v);
        return html(ctx, 429, renderMessagePage('Too many attempts', 'Too many password attempts; wait a while and try again.'));
      }
      throw err;
    }
  }, bodyParser(16 * 1024), async (ctx) => {
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const password = typeof body.password === 'string' ? body.password : '';
    await show(ctx, password);
  });
  return r;
}
