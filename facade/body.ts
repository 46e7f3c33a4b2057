import type { Socket } from 'node:net';
import type { Context, Middleware } from 'koa';
import type { IncomingMessage } from 'node:http';
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

/**
 * The body kind of `ctx`'s Content-Type: `application/json` (with or without parameters)
 * without type-is, anything else through `ctx.is` (which also takes `+json` types and forms).
 */
function bodyKind(ctx: Context): BodyKind | undefined {
  const header = ctx.req.headers['content-type'];
  if (header === 'application/json' || header?.startsWith('application/json;')) return 'json';
  const type = ctx.is('application/json', '+json', 'application/x-www-form-urlencoded');
  if (!type) return undefined;
  return type === 'application/x-www-form-urlencoded' ? 'form' : 'json';
}

/** An error carrying an HTTP status, mapped like co-body's own (facade/errors.ts). */
function httpError(status: number, message: string): Error & { status: number } {
  return Object.assign(new Error(message), { status });
}

/** The Content-Length of a body sent as it is (no Content-Encoding), or undefined. */
function plainLength(req: IncomingMessage): number | undefined {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return undefined;
  const length = req.headers['content-length'];
  return length === undefined ? undefined : Number(length);
}

/**
 * Reads a body of known length sent as it is: one listener per event and one Buffer, instead
 * of raw-body's stream decoder and its five listeners. Past `limitBytes` (declared or
 * received) 413, a body that ends short 400; decoded as UTF-8 with a leading BOM dropped,
 * as iconv-lite does for co-body.
 */
function readPlainBody(req: IncomingMessage, length: number, limitBytes: number): Promise<string> {
  if (length > limitBytes) return Promise.reject(httpError(413, 'request entity too large'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const fail = (err: Error) => {
      cleanup();
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) fail(httpError(413, 'request entity too large'));
      else chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      if (received !== length) return reject(httpError(400, 'request size did not match content length'));
      const text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received)).toString('utf8');
      resolve(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    };
    const onError = (err: Error) => fail(Object.assign(err, { status: 400 }));
    const onClose = () => fail(httpError(400, 'request aborted'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** What co-body takes as a JSON body in strict mode: an object or an array after JSON whitespace. */
const strictJson = /^[ \t\n\r]*[[{]/;

/**
 * Parses JSON and form bodies up to `limitBytes` (413 past the limit, 400 for malformed
 * JSON). A body of known length sent as it is, the usual case, is read by
 * {@link readPlainBody} and parsed as co-body parses it (strict JSON through bourne, which
 * refuses `__proto__` keys; forms through qs with the same bounds); chunked and gzip or
 * deflate bodies go through co-body itself, which inflates them. Any other content type
 * with a body is a 415. Nested form keys are bounded so a hostile body cannot build huge
 * objects.
 */
export function bodyParser(limitBytes: number): Middleware {
  const jsonOptions = { limit: limitBytes, strict: true, encoding: 'utf-8' as const };
  const queryString = { depth: 3, parameterLimit: 200, arrayLimit: 50, allowDots: true };
  const formOptions = { limit: limitBytes, encoding: 'utf-8' as const, queryString };
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
  const parse = (ctx: Context): Promise<unknown> => {
    const kind = bodyKind(ctx);
    if (!kind) {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        'Unsupported content type; send application/json or application/x-www-form-urlencoded.',
      );
    }
    const length = plainLength(ctx.req);
    if (length !== undefined && Number.isSafeInteger(length)) {
      return readPlainBody(ctx.req, length, limitBytes).then((text) => parseText(kind, text));
    }
    return (kind === 'form' ? coBody.form(ctx, formOptions) : coBody.json(ctx, jsonOptions)).catch((err: unknown) => {
      // A body that does not inflate under its Content-Encoding is malformed, not our failure.
      if (/^Z_/.test(String((err as { code?: unknown })?.code))) {
        throw new AppError('BAD_REQUEST', 'Malformed request body.', { cause: err });
      }
      throw err;
    });
  };
  // Not an async function: a request without a body passes through with no promise of its own.
  return (ctx, next) => {
    if (!hasBody(ctx.req)) return next();
    return parse(ctx).then((body) => {
      ctx.request.body = body;
      return next();
    });
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
