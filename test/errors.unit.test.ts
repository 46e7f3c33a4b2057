import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TRPCError } from '@trpc/server';
import { AppError, codeForStatus, errorCodes, notFound, validationError } from '../src/errors.ts';
import { errorBody, toErrorResponse } from '../facade/errors.ts';

describe('error codes', () => {
  it('names one generic code for each status a library may raise', () => {
    const generic = Object.entries(errorCodes).filter(([, e]) => 'generic' in e);
    const statuses = generic.map(([, e]) => e.status);
    expect(new Set(statuses).size).toBe(statuses.length);
    for (const [code, { status }] of generic) expect(codeForStatus(status)).toBe(code);
    expect(codeForStatus(418)).toBeUndefined();
  });

  it('takes its status and, unless given, its message from the code', () => {
    const err = new AppError('ERR_RATE_LIMITED', 'Slow down.', { retryAfter: 3 });
    expect(err.code).toBe('ERR_RATE_LIMITED');
    expect(err.status).toBe(429);
    expect(new AppError('ERR_AUDIT_PAGE_BUDGET').status).toBe(429);
    expect(new AppError('ERR_NOT_FOUND').message).toBe(errorCodes.ERR_NOT_FOUND.message);
    expect(notFound('Report').code).toBe('ERR_NOT_FOUND');
    expect(validationError('url', 'Bad.').code).toBe('ERR_VALIDATION');
    // A code of another status than 422 is a type error, not a silent swap.
    // @ts-expect-error ERR_RATE_LIMITED is a 429
    expect(validationError('url', 'Bad.', { code: 'ERR_RATE_LIMITED' }).status).toBe(429);
  });

  it('builds {code, message, status, errors?} at the choke point, and hides internals', () => {
    const res = toErrorResponse(
      validationError('url', 'Could not resolve.', { code: 'ERR_ANALYSIS_FAILED', reason: 'dns' }),
    );
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      code: 'ERR_ANALYSIS_FAILED',
      message: 'Could not resolve.',
      status: 422,
      errors: { url: ['Could not resolve.'] },
      reason: 'dns',
    });
    const limited = toErrorResponse(new AppError('ERR_RATE_LIMITED', 'Too many.', { retryAfter: 2.2 }));
    expect(limited.headers['Retry-After']).toBe('3');
    expect(limited.body.code).toBe('ERR_RATE_LIMITED');
    const boom = toErrorResponse(new Error('secret detail'));
    expect(boom).toMatchObject({ status: 500, unexpected: true });
    expect(boom.body).toEqual({ code: 'ERR_INTERNAL', message: 'Internal server error.', status: 500 });
    const internal = toErrorResponse(new AppError('ERR_INTERNAL', 'secret detail'));
    expect(internal.body).toEqual({ code: 'ERR_INTERNAL', message: 'Internal server error.', status: 500 });
    const library = toErrorResponse(Object.assign(new Error('request entity too large'), { status: 413 }));
    expect(library.body).toEqual({ code: 'ERR_PAYLOAD_TOO_LARGE', message: expect.any(String), status: 413 });
    const down = toErrorResponse(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }));
    expect(down.body.code).toBe('ERR_UNAVAILABLE');
    expect(down.headers['Retry-After']).toBe('5');
    // What knex answers for a query on a transaction whose PostgreSQL connection was killed.
    const midWrite = new Error('Transaction query already complete, run with DEBUG=knex:tx for more info');
    expect(toErrorResponse(new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: midWrite })).status).toBe(503);
    expect(errorBody('ERR_HEADERS_TOO_LARGE', 'Too large.')).toEqual({
      code: 'ERR_HEADERS_TOO_LARGE',
      message: 'Too large.',
      status: 431,
    });
  });

  it('is documented: docs/api.md lists every code with its status', () => {
    const readme = readFileSync(new URL('../docs/api.md', import.meta.url), 'utf8');
    for (const [code, { status }] of Object.entries(errorCodes)) {
      expect(readme, code).toMatch(new RegExp(`\\| \`${code}\` \\| ${status} \\|`));
    }
  });
});
