import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS module loaded on its first use rather than when the importing module loads. For
 * libraries only a few paths call whose loading holds memory for the life of the process: the
 * service imports the analyzer's check definitions for their ids and weights, but runs the
 * checks in worker threads, so the main thread never needs tldts's suffix list (about 11 MB
 * resident) or robots-parser.
 */
export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(id) as T);
}
