import type { Context } from 'koa';

/**
 * Sets one response header whose value is already its final string, straight on Node's
 * response: what `ctx.set(name, value)` does for such a value, without Koa 3's per-call
 * arrays (it wraps the pair, maps it through a normaliser that lower-cases the name, and
 * walks the result). The hot routes set five headers this way on every answer.
 */
export function setHeader(ctx: Context, name: string, value: string): void {
  if (!ctx.headerSent) ctx.res.setHeader(name, value);
}

/**
 * Adds `field` to Vary, as `ctx.vary(field)` does; when there is no Vary yet (the usual case:
 * one middleware per route sets it) without parsing one.
 */
export function addVary(ctx: Context, field: string): void {
  if (ctx.res.hasHeader('Vary')) ctx.vary(field);
  else setHeader(ctx, 'Vary', field);
}
