import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TRPCError } from '@trpc/server';
import { AppError, defaultCodeOf, errorCodes, errorStatus, notFound, validationError } from '../src/errors.ts';
import { errorBody, toErrorResponse } from '../facade/errors.ts';

describe('error codes', () => {
  it('gives every kind a default code documented with the kind’s status', () => {
    for (const [kind, code] of Object.entries(defaultCodeOf)) {
      expect(errorCodes[code].status, kind).toBe(errorStatus[kind as keyof typeof errorStatus]);
    }
  });

  it('keeps the old constructor: a kind alone gets its default code', () => {
    const err = new AppError('RATE_LIMITED', 'Slow down.', { retryAfter: 3 });
    expect(err.kind).toBe('RATE_LIMITED');
    expect(err.code).toBe('ERR_RATE_LIMITED');
    expect(err.status).toBe(429);
    expect(notFound('Report').code).toBe('ERR_NOT_FOUND');
    expect(validationError('url', 'Bad.').code).toBe('ERR_VALIDATION');
  });

  it('takes a code of the same status, and ignores one of another status', () => {
    expect(new AppError('VALIDATION_FAILED', 'x', { code: 'ERR_ANALYSIS_FAILED' }).code).toBe('ERR_ANALYSIS_FAILED');
    expect(new AppError('NOT_FOUND', 'x', { code: 'ERR_RATE_LIMITED' }).code).toBe('ERR_NOT_FOUND');
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
    const limited = toErrorResponse(new AppError('RATE_LIMITED', 'Too many.', { retryAfter: 2.2 }));
    expect(limited.headers['Retry-After']).toBe('3');
    expect(limited.body.code).toBe('ERR_RATE_LIMITED');
    const boom = toErrorResponse(new Error('secret detail'));
    expect(boom).toMatchObject({ status: 500, unexpected: true });
    expect(boom.body).toEqual({ code: 'ERR_INTERNAL', message: 'Internal server error.', status: 500 });
    const internal = toErrorResponse(new AppError('INTERNAL', 'secret detail'));
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
