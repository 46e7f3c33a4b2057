import type { CaptchaDeps, BrowserRequest } from '../src/captcha/context.ts';
import type { InnerContext } from './context.ts';

/** The challenge flows' dependencies from a procedure's context. */
export function captchaDeps(ctx: InnerContext): CaptchaDeps {
  if (!ctx.config.tokenKey) throw new Error('TOKEN_KEY was not resolved at start');
  return { em: ctx.em, stores: ctx.stores, tokenKey: ctx.config.tokenKey, now: Date.now };
}

/** The browser request as the challenge flows see it. */
export function browserRequest(ctx: InnerContext): BrowserRequest {
  const r = ctx.request;
  return { origin: r.origin, ip: r.ip, userAgent: r.userAgent, acceptLanguage: r.acceptLanguage, referer: r.referer };
}
