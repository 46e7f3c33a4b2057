import type { AnyRouter } from '@trpc/server';
import { forEachOpenApiProcedure, getInputOutputParsers, type OpenApiProcedureRecord } from 'trpc-to-openapi';
import type { Meta } from '../routers/trpc.ts';
import { procedureRecord } from './procedures.ts';
import { SITEVERIFY_PATHS, SITEVERIFY_PROCEDURE } from './siteverify.ts';
import type { Protocol } from '../src/captcha/protocols.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One REST route, derived from a procedure's meta. */
export interface RouteEntry {
  method: HttpMethod;
  /** OpenAPI-style path, `/api/v1/reports/{id}`. */
  path: string;
  /** Koa-router style path, `/api/v1/reports/:id`. */
  routerPath: string;
  procedurePath: string;
  type: 'query' | 'mutation';
  meta: Meta;
  /** True when the procedure takes no input (z.void()), so query strings are ignored. */
  voidInput: boolean;
  /** Set on the extra entries of `meta.aliasMethods`: the method documented under `openapi`. */
  aliasOf?: HttpMethod;
  /** Set on siteverify's routes: the shape its answers take at this path (siteverify.ts). */
  protocol?: Protocol;
  /** Set on siteverify's routes but one: the path the procedure's own meta documents. */
  aliasOfPath?: string;
}

/**
 * Every procedure with `openapi` meta becomes a route; siteverify's becomes one per path it is
 * served at (siteverify.ts). The REST surface, the OpenAPI document and /trpc therefore come
 * from one router and cannot drift apart.
 */
export function buildRouteTable(router: AnyRouter): RouteEntry[] {
  const table: RouteEntry[] = [];
  const record = procedureRecord(router) as unknown as OpenApiProcedureRecord;
  forEachOpenApiProcedure<Meta>(record, ({ path: procedurePath, type, procedure, meta }) => {
    if (type !== 'query' && type !== 'mutation') return;
    const { inputParser, hasInputsDefined } = getInputOutputParsers(procedure);
    const voidInput =
      !hasInputsDefined || (inputParser.safeParse(undefined).success && !inputParser.safeParse({}).success);
    const entry: RouteEntry = {
      method: meta.openapi.method,
      path: meta.openapi.path,
      routerPath: meta.openapi.path.replace(/\{(\w+)\}/g, ':$1'),
      procedurePath,
      type,
      meta,
      voidInput,
    };
    if (procedurePath === SITEVERIFY_PROCEDURE) {
      for (const { path, protocol } of SITEVERIFY_PATHS) {
        const own = path === entry.path;
        table.push({ ...entry, path, routerPath: path, protocol, ...(own ? {} : { aliasOfPath: entry.path }) });
      }
      return;
    }
    table.push(entry);
    for (const method of meta.aliasMethods ?? []) table.push({ ...entry, method, aliasOf: entry.method });
  });
  return table;
}

export function methodHasBody(method: string): boolean {
  return method === 'POST' || method === 'PUT' || method === 'PATCH';
}
