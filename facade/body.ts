import type { Socket } from 'node:net';
import type { Context, Middleware } from 'koa';
import coBody from 'co-body';
import { AppError } from '../src/errors.ts';

declare module 'koa' {
  interface Request {
    /** The parsed JSON or form body, set by {@link bodyParser} (absent without a body). */
    body?: unknown;
  }
}

/** Whether the request carries a body at all (a length above zero, or chunked). */
export function hasBody(req: { headers: Record<string, string | string[] | undefined> }): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

/**
 * Parses JSON and form bodies up to `limitBytes` with co-body (413 past the limit, 400 for
 * malformed JSON, inflating gzip and deflate). Any other content type with a body is a 415.
 * Nested form keys are bounded so a hostile body cannot build huge objects. The content type
 * is matched once, and co-body called directly: koa-body around it matched it four times.
 */
export function bodyParser(limitBytes: number): Middleware {
  const jsonOptions = { limit: limitBytes, strict: true, encoding: 'utf-8' as const };
  const formOptions = {
    limit: limitBytes,
    encoding: 'utf-8' as const,
    queryString: { depth: 3, parameterLimit: 200, arrayLimit: 50 },
  };
  const parse = async (ctx: Context) => {
    const type = ctx.is('application/json', '+json', 'application/x-www-form-urlencoded');
    if (!type) {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        'Unsupported content type; send application/json or application/x-www-form-urlencoded.',
      );
    }
    try {
      ctx.request.body = (
        type === 'application/x-www-form-urlencoded'
          ? await coBody.form(ctx, formOptions)
          : await coBody.json(ctx, jsonOptions)
      ) as unknown;
    } catch (err) {
      // A body that does not inflate under its Content-Encoding is malformed, not our failure.
      if (/^Z_/.test(String((err as { code?: unknown })?.code))) {
        throw new AppError('BAD_REQUEST', 'Malformed request body.', { cause: err });
      }
      throw err;
    }
  };
  // Not an async function: a request without a body passes through with no promise of its own.
  return (ctx, next) => (hasBody(ctx.req) ? parse(ctx).then(() => next()) : next());
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
