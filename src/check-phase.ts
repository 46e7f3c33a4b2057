import { setImmediate } from 'node:timers';

/**
 * Resolves in the event loop's check phase, after every socket of the current poll has been
 * read. Work that waits for it runs over the batch of requests read in that poll rather than
 * one request at a time, and their answers go out together: wrk and browsers alike get
 * several responses per wake-up. Used where a request would otherwise run to its answer
 * without yielding (memory stores): the memory spent-token store (siteverify) and the
 * browser challenge routes on memory stores (facade/rest.ts). From node:timers, so tests'
 * fake timers (which replace the global) leave it real.
 */
export function checkPhase(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
