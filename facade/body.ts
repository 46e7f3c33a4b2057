import type { Socket } from 'node:net';
import type { Context, Middleware } from 'koa';
import bourne from '@hapi/bourne';
import coBody from 'co-body';
import qs from 'qs';
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

/** What a body is parsed as, from its Content-Type. */
type BodyKind = 'json' | 'form';

/** The body kind of `ctx`'s Content-Type (`+json` types count as JSON), or undefined. */
function bodyKind(ctx: Context): BodyKind | undefined {
  const type = ctx.is('application/json', '+json', 'application/x-www-form-urlencoded');
  if (!type) return undefined;
  return type === 'application/x-www-form-urlencoded' ? 'form' : 'json';
}

/** What co-body takes as a JSON body in strict mode: an object or an array after JSON whitespace. */
const strictJson = /^[ \t\n\r]*[[{]/;

/**
 * Parses JSON and form bodies up to `limitBytes` (413 past the limit, 400 for malformed
 * JSON). co-body reads the body (inflating gzip or deflate, checking its length, decoding
 * UTF-8); the text is parsed as co-body's strict JSON, through bourne, which refuses
 * `__proto__` keys, and forms through qs with nested keys bounded, so a hostile body cannot
 * build huge objects. Any other content type with a body is a 415.
 */
export function bodyParser(limitBytes: number): Middleware {
  const textOptions = { limit: limitBytes, encoding: 'utf-8' as const };
  const queryString = { depth: 3, parameterLimit: 200, arrayLimit: 50, allowDots: true };
  const parseText = (kind: BodyKind, text: string): unknown => {
    try {
      if (kind === 'form') return qs.parse(text, queryString);
      if (!text) return {};
      if (!strictJson.test(text)) throw new SyntaxError('invalid JSON, only supports object and array');
      return bourne.parse(text, { protoAction: 'error' });
    } catch (err) {
      throw Object.assign(err as Error, { status: 400 });
    }
  };
  const read = async (ctx: Context): Promise<string> => {
    try {
      return (await coBody.text(ctx, textOptions)) as string;
    } catch (err) {
      // A body that does not inflate under its Content-Encoding is malformed, not our failure.
      if (/^Z_/.test(String((err as { code?: unknown })?.code))) {
        throw new AppError('ERR_BAD_REQUEST', 'Malformed request body.', { cause: err });
      }
      throw err;
    }
  };
  return async (ctx, next) => {
    if (!hasBody(ctx.req)) {
      await next();
      return;
    }
    const kind = bodyKind(ctx);
    if (!kind) {
      throw new AppError(
        'ERR_UNSUPPORTED_MEDIA_TYPE',
        'Unsupported content type; send application/json or application/x-www-form-urlencoded.',
      );
    }
    ctx.request.body = parseText(kind, await read(ctx));
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
  // Node ends a `Connection: close` response with socket.destroySoon(): end, then destroy at
  // once, which resets a client still sending and loses it the answer (docs/decisions/0020).
  socket.destroySoon = function lingeringClose(this: Socket) {
    if (this.writable) this.end();
    const timer = setTimeout(() => this.destroy(), lingerMs);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
  };
}
