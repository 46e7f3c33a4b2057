import type { AnyProcedure, AnyRouter } from '@trpc/server';
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
 * An in-process caller for the procedure at `path`, made once per route: the procedure is
 * looked up once, then called per request as tRPC's own caller calls it (its path, the raw
 * input, the context, its type), so its whole middleware chain runs (error mapping, input
 * guard, auth, input and output parsers, resolver), as on /trpc. tRPC's `createCaller(ctx)`
 * builds a proxy for each context and walks it on each call: a fifth of the CPU tRPC spent on
 * a siteverify request (decision 0016). Resolves with the procedure's answer; rejects with
 * the TRPCError it failed with.
 */
export function procedureCaller(router: AnyRouter, path: string): ProcedureCall {
  const procedure = procedureRecord(router)[path];
  if (!procedure) throw new Error(`no procedure ${path}`);
  const type = procedure._def.type;
  return (ctx, rawInput) =>
    procedure({ path, ctx, type, getRawInput: () => Promise.resolve(rawInput), signal: undefined, batchIndex: 0 });
}
