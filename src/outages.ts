import { ConnectionException } from '@mikro-orm/core';
import {
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  ReconnectStrategyError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
} from 'redis';

/** node-redis's own classes for a store that is unreachable or went away. */
const storeDown = [
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  ReconnectStrategyError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
];

/** Codes of a connection that failed: system errors, and PostgreSQL's admin shutdown and class 08. */
const connectionCodes = new Set([
  ...['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH'],
  ...['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006'],
]);

/**
 * node-postgres and knex raise these as bare `Error`s with no code or class of their own, so
 * their fixed text is all there is to know them by (MikroORM and knex carry it into their own
 * errors' messages).
 */
const bareDriverMessages = [
  'connection terminated', // pg: "Connection terminated unexpectedly" / "due to connection timeout"
  'client has encountered a connection error', // pg, a client that lost its socket
  'client was closed and is not queryable', // pg
  'timeout exceeded when trying to connect', // pg-pool
  'connection ended unexpectedly', // knex's mark on a pg connection that ended
  // knex, for a query on a transaction whose connection died under it (rolled back by then).
  'transaction query already complete',
];

/**
 * Whether a failure means a dependency (the database or the store) is down rather than a
 * bug: requests that meet one get 503 with Retry-After (docs/api.md), not a bare 500. Known by
 * the error's class or code, through `cause` chains (tRPC and MikroORM wrap driver errors).
 */
export function isDependencyDown(err: unknown): boolean {
  let e = err;
  for (let depth = 0; e instanceof Error && depth < 6; depth++, e = e.cause) {
    if (e instanceof ConnectionException || storeDown.some((type) => e instanceof type)) return true;
    // knex's pool timeout (knex is MikroORM's, not ours to import).
    if (e.name === 'KnexTimeoutError') return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && connectionCodes.has(code)) return true;
    // MikroORM and knex carry the driver's text into messages of their own classes.
    const message = e.message.toLowerCase();
    if (bareDriverMessages.some((m) => message.includes(m))) return true;
  }
  return false;
}
