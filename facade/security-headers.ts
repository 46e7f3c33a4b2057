import type { Middleware } from 'koa';
import type { Config } from '../src/config.ts';

/**
 * Headers every answer carries, errors included: `nosniff` (a JSON or text answer is never
 * run as script or style by a browser that guesses types), and HSTS when the service's public
 * address is https (PUBLIC_URL), so browsers never reach it over plain HTTP again.
 */
export function securityHeaders(config: Pick<Config, 'PUBLIC_URL'>): Middleware {
  const hsts = config.PUBLIC_URL?.startsWith('https:') ? 'max-age=31536000; includeSubDomains' : undefined;
  return (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (hsts) ctx.set('Strict-Transport-Security', hsts);
    return next();
  };
}
