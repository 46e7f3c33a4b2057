import type { AnyProcedure, AnyRouter } from '@trpc/server';
import { createCallerFactory } from '../routers/trpc.ts';
import type { InnerContext } from '../routers/context.ts';

/** What tRPC adds to every router object beside its record: its definition (`_`-prefixed) and `createCaller`. */
const isRouterOwnKey = (key: string) => key.startsWith('_') || key === 'createCaller';

/**
 * Every procedure of `router` by its dotted path (`siteverify.verify`), read from the router
 * object's public shape: a router spreads its record, sub-routers are objects, procedures
 * are functions. Procedure names starting with `_` are not listed.
 */
export function procedureRecord(router: AnyRouter): Record<string, AnyProcedure> {
  const record: Record<string, AnyProcedure> = {};
  const walk = (node: object, prefix: string) => {
    for (const [key, value] of Object.entries(node)) {
      if (isRouterOwnKey(key)) continue;
      if (typeof value === 'function') record[prefix + key] = value as AnyProcedure;
      else if (value && typeof value === 'object') walk(value as object, `${prefix}${key}.`);
    }
  };
  walk(router, '');
  return record;
}

/** A call of one procedure with a request's inner context and raw input. */
export type ProcedureCall = (ctx: InnerContext, rawInput: unknown) => Promise<unknown>;

/**
 * An in-process caller for the procedure at `path`, through tRPC's own caller: the whole
 * middleware chain runs (error mapping, input guard, auth, input and output parsers, resolver),
 * as on /trpc. Resolves with the procedure's answer; rejects with the TRPCError it failed with.
 */
export function procedureCaller(router: AnyRouter, path: string): ProcedureCall {
  if (!(path in procedureRecord(router))) throw new Error(`no procedure ${path}`);
  const createCaller = createCallerFactory(router);
  const keys = path.split('.');
  return (ctx, rawInput) => {
    let target: unknown = createCaller(ctx);
    for (const key of keys) target = (target as Record<string, unknown>)[key];
    return (target as (input: unknown) => Promise<unknown>)(rawInput);
  };
}
