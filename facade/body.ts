import type { Middleware } from 'koa';
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
  } as Parameters<typeof koaBody>[0]);
  return async (ctx, next) => {
    if (hasBody(ctx.req) && !ctx.is('application/json', 'application/x-www-form-urlencoded', '+json')) {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        'Unsupported content type; send application/json or application/x-www-form-urlencoded.',
      );
    }
    await parse(ctx, next);
  };
}
