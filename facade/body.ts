import type { Socket } from 'node:net';
import type { Context, Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { AppError } from '../src/errors.ts';

/** Whether the request carries a body at all (a length above zero, or chunked). */
export function hasBody(req: { headers: Record<string, string | string[] | undefined> }): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

/**
 * Parses JSON and form bodies up to `limitBytes` (co-body answers 413 past it and 400 for
 * malformed JSON). Any other content type with a body is a 415. Nested form keys are
 * bounded so a hostile body cannot build huge objects.
 */
export function bodyParser(limitBytes: number): Middleware {
  const parse = koaBody({
    json: true,
    urlencoded: true,
    text: false,
    multipart: false,
    jsonStrict: true,
    jsonLimit: limitBytes,
    formLimit: limitBytes,
    queryString: { depth: 3, parameterLimit: 200, arrayLimit: 50 },
  });
  return async (ctx, next) => {
    if (hasBody(ctx.req) && !ctx.is('application/json', 'application/x-www-form-urlencoded', '+json')) {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        'Unsupported content type; send application/json or application/x-www-form-urlencoded.',
      );
    }
    let parsed = false;
    try {
      await parse(ctx, async () => {
        parsed = true;
      });
    } catch (err) {
      // A body that does not inflate under its Content-Encoding is malformed, not our failure.
      if (!parsed && /^Z_/.test(String((err as { code?: unknown })?.code))) {
        throw new AppError('BAD_REQUEST', 'Malformed request body.', { cause: err });
      }
      throw err;
    }
    await next();
  };
}

/**
 * For an answer given before the request body was read (too large, refused before parsing):
 * close the connection after it rather than swallow the rest of the body, and close it
 * gently: half-close after the answer, then wait up to `lingerMs` before dropping the socket,
 * so a client still sending reads the answer instead of losing it to a TCP reset.
 */
export function closeAfterUnreadBody(ctx: Context, lingerMs = 2000): void {
  if (ctx.req.complete) return;
  ctx.set('Connection', 'close');
  const socket = ctx.req.socket as Socket & { lingering?: boolean };
  if (socket.lingering) return;
  socket.lingering = true;
  // Node ends a `Connection: close` response with socket.destroySoon(): end, then destroy.
  socket.destroySoon = function lingeringClose(this: Socket) {
    if (this.writable) this.end();
    const timer = setTimeout(() => this.destroy(), lingerMs);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
  };
}
